package io.isobench.probe;

/** Factory of the serving client. */
public final class Clients {

    private Clients() {
    }

    /** The pinned serving client every arm uses: isobench's load generator, in-process. */
    public static ServingClient serving() {
        return new LoadgenServingClient();
    }
}
