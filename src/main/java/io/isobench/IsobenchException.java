package io.isobench;

import java.util.Locale;

/**
 * The small exception family that maps to exit codes in one place ({@code cli.Main}).
 * Expected failures carry a one-line message: what, which value, how to fix.
 */
public sealed class IsobenchException extends RuntimeException
        permits IsobenchException.BadInput, IsobenchException.EnvironmentMissing,
                IsobenchException.NothingMeasured {

    private final int exitCode;

    private IsobenchException(String message, Throwable cause, int exitCode) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }

    /** Bad options, suite, root folder or database: exit 2. */
    public static final class BadInput extends IsobenchException {
        public BadInput(String message) {
            this(message, null);
        }

        public BadInput(String message, Throwable cause) {
            super(message, cause, 2);
        }
    }

    /** The environment lacks something (JDK, daemon, executor, service): exit 3. */
    public static final class EnvironmentMissing extends IsobenchException {
        public EnvironmentMissing(String message) {
            this(message, null);
        }

        public EnvironmentMissing(String message, Throwable cause) {
            super(message, cause, 3);
        }
    }

    /** Nothing at all could be measured: exit 4. */
    public static final class NothingMeasured extends IsobenchException {
        public NothingMeasured(String message) {
            super(message, null, 4);
        }
    }

    public static BadInput badInput(String format, Object... args) {
        return new BadInput(String.format(Locale.ROOT, format, args));
    }
}
