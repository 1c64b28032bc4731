package io.isobench.parse;

import io.isobench.session.Session;

/** A planted arrow up for {@code ArchitectureTest}: {@code parse} may not use {@code session}. Never used otherwise. */
public final class PlantedArrowUp {
    private PlantedArrowUp() {
    }

    static Class<?> up() {
        return Session.class;
    }
}
