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
     * How every row of a spooled table is marked: its CSS class and an extra first cell (XHTML, its header empty).
     *
     * @param rowClass the rows' CSS class, or null
     * @param badge    XHTML of the extra first cell of every row, or null for none
     */
    record RowMark(String rowClass, String badge) {
        /** Rows as they are: no class, no extra cell. */
        static final RowMark NONE = new RowMark(null, null);
    }

    /** Spooled rows as paged HTML tables under the table's header, each row marked by {@code mark}. */
    void spoolPages(String base, String title, String intro, Rows.Table table, Spool spool, RowMark mark)
            throws IOException {
        Paged p = new Paged(site, base, title, intro, table.htmlHeader(mark.badge() != null), spool.lines());
        spool.forEach(row -> p.add(Rows.html(row, mark.rowClass(), mark.badge(), colours::of)));
        p.finish();
    }
}
