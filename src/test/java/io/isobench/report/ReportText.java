package io.isobench.report;

import io.isobench.store.Store;

import java.io.StringWriter;
import java.time.Instant;

/** The Markdown report of a test store (every agent, ±5 % band, generated at the epoch), as the tests read it. */
final class ReportText {

    private ReportText() {
    }

    static String markdown(Store store) {
        StringWriter out = new StringWriter();
        try (ReportModel model = ReportModel.build(store, new ReportScope(null, 5.0, Instant.EPOCH))) {
            MarkdownReport.write(model, out);
        }
        return out.toString();
    }
}
