package io.isobench.report;

import io.isobench.analysis.StatsConfig;
import io.isobench.store.Store;

import java.io.IOException;
import java.util.List;

/** A page type of the HTML report: what every page draws from, and the paging of spooled Markdown rows. */
abstract class HtmlPage {

    /**
     * What the pages of one report share.
     *
     * @param store   the store (its description is in the receipt)
     * @param options the report options (agent filter, single-run band, generation time)
     * @param model   the imported-data model, shared with the Markdown report
     * @param tasks   the native tasks, in plan order
     * @param colours one colour per arm for the whole site
     * @param site    where the pages go
     */
    record HtmlContext(Store store, MarkdownReport.Options options, ReportModel model, List<NativeTask> tasks,
                       Colours colours, Site site) {
    }

    final HtmlContext context;
    final Store store;
    final MarkdownReport.Options options;
    final ReportModel m;
    final List<NativeTask> tasks;
    final Colours colours;
    final Site site;
    final StatsConfig config = StatsConfig.defaults();

    HtmlPage(HtmlContext context) {
        this.context = context;
        this.store = context.store();
        this.options = context.options();
        this.m = context.model();
        this.tasks = context.tasks();
        this.colours = context.colours();
        this.site = context.site();
    }

    String band() {
        return MarkdownReport.fmt1(options.bandPct());
    }

    /** A spool of Markdown rows as paged HTML tables. */
    void spoolPages(String base, String title, String intro, String header, ReportModel.Spool spool,
                            String rowClass, String badge) throws IOException {
        Paged p = new Paged(site, base, title, intro, header, spool.lines());
        try (Paged.LineSink sink = new Paged.LineSink(line -> {
            if (!line.isBlank()) {
                p.add(Html.mdRow(line, rowClass, badge));
            }
        })) {
            spool.copyTo(sink);
        }
        p.finish();
    }
}
