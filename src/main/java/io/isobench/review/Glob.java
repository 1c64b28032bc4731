package io.isobench.review;

import java.util.regex.Pattern;

/**
 * Repository path patterns. {@code dir/} matches everything under dir (at the repository root); a pattern without
 * {@code /} matches the file name in any folder ({@code conftest.py}); otherwise a glob on the whole path where
 * {@code **}{@code /} is any number of folders, {@code *} and {@code ?} stay within one folder.
 */
final class Glob {

    private Glob() {
    }

    static boolean matches(String pattern, String path) {
        String p = normalize(pattern);
        String f = normalize(path);
        if (p.isEmpty()) {
            return false;
        }
        if (p.endsWith("/")) {
            return f.startsWith(p) || f.equals(p.substring(0, p.length() - 1));
        }
        if (!p.contains("/")) {
            String base = f.substring(f.lastIndexOf('/') + 1);
            return toRegex(p).matcher(base).matches();
        }
        return toRegex(p).matcher(f).matches();
    }

    static String normalize(String path) {
        String f = path.replace('\\', '/');
        while (f.startsWith("./")) {
            f = f.substring(2);
        }
        return f;
    }

    private static Pattern toRegex(String glob) {
        StringBuilder re = new StringBuilder();
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '*') {
                if (i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
                    if (i + 2 < glob.length() && glob.charAt(i + 2) == '/') {
                        re.append("(?:.*/)?");
                        i += 2;
                    } else {
                        re.append(".*");
                        i++;
                    }
                } else {
                    re.append("[^/]*");
                }
            } else if (c == '?') {
                re.append("[^/]");
            } else {
                re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(re.toString());
    }
}
