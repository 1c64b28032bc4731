package io.isobench.agent;

import io.isobench.IsobenchException;
import io.isobench.exec.GpuSampler;
import io.isobench.exec.GpuTelemetry;
import io.isobench.plan.GpuDiscovery;
import io.isobench.plan.GpuSlots;
import io.isobench.plan.HostGpuLocks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The GPUs of one attempt (docs/agents.md, "GPUs in the sandbox"): {@code n} GPUs of this host's inventory leased
 * through the host-wide lock ({@link HostGpuLocks}, the lease measured jobs take too), so an attempt never gets a GPU
 * a measured run (or another attempt) of any isobench process on this host holds; the wait for them is bounded and
 * ends in one line naming the GPUs held and by which pid. While the attempt runs its GPUs are sampled on the host
 * with the serving runs' {@link GpuSampler} ({@code nvidia-smi -i IDS}, never inside the container); what is stored
 * with the attempt comes from {@link #facts}.
 */
public final class AttemptGpus implements AutoCloseable {

    /**
     * Where attempts' GPUs come from (a test hands in a fake inventory, lock folder and {@code nvidia-smi}).
     *
     * @param inventory  this host's GPUs ({@link GpuDiscovery})
     * @param locks      the host-wide locks
     * @param maxWait    how long a lease waits for GPUs held elsewhere
     * @param nvidiaSmi  the sampler's {@code nvidia-smi} (null: no telemetry, said in the record)
     * @param intervalMs the sampling interval; 0: no telemetry
     */
    public record Host(GpuDiscovery.Inventory inventory, HostGpuLocks locks, Duration maxWait, Path nvidiaSmi,
                       int intervalMs) {

        /** This host: {@code ISOBENCH_GPUS} or nvidia-smi, the host's lock folder, the PATH's nvidia-smi. */
        public static Host of(Map<String, String> env) {
            String ms = env.get("ISOBENCH_GPU_TELEMETRY_MS");
            int interval = GpuSampler.DEFAULT_INTERVAL_MS;
            if (ms != null && !ms.isBlank()) {
                try {
                    interval = Integer.parseInt(ms.strip());
                } catch (NumberFormatException e) {
                    interval = -1;
                }
                if (interval != 0 && interval < 10) {
                    throw new IsobenchException.BadInput("ISOBENCH_GPU_TELEMETRY_MS '" + ms + "': must be 0 (off) or a"
                            + " whole number of ms >= 10 (fix: e.g. 100)");
                }
            }
            return new Host(GpuDiscovery.discover(null), HostGpuLocks.forHost(env), HostGpuLocks.waitFrom(env),
                    GpuSampler.find(env.get("PATH")), interval);
        }

        /**
         * Refuses, in one line, {@code n} GPUs per attempt on a host with fewer ({@link GpuDiscovery}'s own hint for
         * an empty inventory names {@code run}'s node-wide {@code --gpus}, which is not this flag: a line of its own).
         */
        public void check(int n) {
            if (inventory.count() == 0 && n > 0) {
                throw new IsobenchException.EnvironmentMissing("sandbox.gpus: " + n + " GPU(s) per attempt, but this"
                        + " host has 0: isobench sees no GPU (nvidia-smi lists none, is missing or failed, and "
                        + GpuDiscovery.ENV + " is unset) (fix: run on a host with GPUs and nvidia-smi, name them with "
                        + GpuDiscovery.ENV + "=0,1,…, or give the attempt none: --gpus 0)");
            }
            if (n > inventory.count()) {
                throw new IsobenchException.EnvironmentMissing("sandbox.gpus: " + n + " GPU(s) per attempt, but this"
                        + " host has " + inventory.count() + " (" + inventory.source() + ") (fix: lower sandbox.gpus"
                        + " or --gpus, or run on a host with more GPUs)");
            }
        }

        /**
         * Leases {@code n} GPUs for the attempt {@code by}; a host with fewer GPUs, or GPUs still held elsewhere
         * when the wait ends, is one line.
         */
        public AttemptGpus lease(int n, String by) throws InterruptedException {
            check(n);
            HostGpuLocks.Held held;
            try {
                held = locks.acquireAny(inventory.ids(), n, maxWait, by);
            } catch (HostGpuLocks.Busy | GpuSlots.Insufficient | IllegalStateException e) {
                throw new IsobenchException.EnvironmentMissing("sandbox.gpus: " + e.getMessage());
            }
            return new AttemptGpus(this, held);
        }
    }

    private final Host host;
    private final HostGpuLocks.Held held;
    private GpuSampler sampler;
    private Path csv;

    private AttemptGpus(Host host, HostGpuLocks.Held held) {
        this.host = host;
        this.held = held;
    }

    /** The leased GPUs' host indexes, ascending. */
    public List<Integer> ids() {
        return held.ids();
    }

    /** Starts sampling the leased GPUs into {@code csv} (nothing when the host has no nvidia-smi or interval 0). */
    public void sample(Path csv) {
        this.csv = csv;
        if (host.intervalMs() > 0) {
            sampler = GpuSampler.start(host.nvidiaSmi(), csv, host.intervalMs(), ids());
        }
    }

    /**
     * Stops sampling; the GPUs and their telemetry as stored with the attempt.
     *
     * @param mode how the devices reached the container ({@code nvidia-runtime}, {@code device-nodes}, or
     *             {@code local} for the local sandbox)
     */
    public AttemptRecords.Gpus facts(String mode) {
        GpuSampler.Result r = sampler == null
                ? new GpuSampler.Result(false, "GPU telemetry off (ISOBENCH_GPU_TELEMETRY_MS=0)", List.of(), null,
                        new GpuTelemetry.Parsed(List.of(), List.of()))
                : sampler.stop();
        sampler = null;
        List<String> models = new ArrayList<>();
        List<String> uuids = new ArrayList<>();
        for (int id : ids()) {
            GpuDiscovery.Gpu g = host.inventory().gpu(id);
            models.add(g == null ? null : g.name());
            uuids.add(g == null ? null : g.uuid());
        }
        return new AttemptRecords.Gpus(ids(), models, uuids, mode, r, r.available() ? csv : null);
    }

    /** Gives the GPUs back (and ends a sampler still running). */
    @Override
    public void close() {
        if (sampler != null) {
            sampler.stop();
            sampler = null;
        }
        held.close();
    }

    /** The record's {@code gpus}, {@code gpu_ids}, {@code gpu_models}, {@code gpu_uuids}, {@code gpu_mode} keys. */
    static Map<String, Object> keys(AttemptRecords.Gpus g) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("gpus", g.ids().size());
        m.put("gpu_ids", g.ids());
        m.put("gpu_models", g.models());
        m.put("gpu_uuids", g.uuids());
        m.put("gpu_mode", g.mode());
        return m;
    }
}
