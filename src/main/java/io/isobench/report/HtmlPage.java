package io.isobench.report;

import io.isobench.analysis.StatsConfig;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/** A page type of the HTML report: what every page draws from, and the paging of spooled rows ({@link Rows}). */
abstract class HtmlPage {

    /**
     * What the pages of one report share.
     *
     * @param model    the report model
     * @param colours  one colour per arm for the whole site
     * @param site     where the pages go
     * @param logFiles the failed runs' logs written beside the pages: log artifact → file name
     */
    record HtmlContext(ReportModel model, Colours colours, Site site, Map<String, String> logFiles) {
    }

    final HtmlContext context;
    final ReportModel model;
    final ReportScope options;
    final LegacyModel m;
    final List<NativeTask> tasks;
    final Colours colours;
    final Site site;
    final StatsConfig config = StatsConfig.defaults();

    HtmlPage(HtmlContext context) {
        this.context = context;
        this.model = context.model();
        this.options = model.scope();
        this.m = model.legacy();
        this.tasks = model.tasks();
        this.colours = context.colours();
        this.site = context.site();
    }

    String band() {
        return Md.fmt1(options.bandPct());
    }

    /**
     * Spooled rows as paged HTML tables under the table's header; {@code badge}: XHTML of an extra first cell of every
     * row (its header empty), or null.
     */
    void spoolPages(String base, String title, String intro, Rows.Table table, Spool spool, String rowClass,
                    String badge) throws IOException {
        Paged p = new Paged(site, base, title, intro, table.htmlHeader(badge != null), spool.lines());
        spool.forEach(row -> p.add(Rows.html(row, rowClass, badge, colours::of)));
        p.finish();
    }
}
