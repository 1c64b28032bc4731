package io.isobench.report;

import java.io.IOException;

import static io.isobench.report.Html.esc;

/**
 * A long table split into pages {@code base.html}, {@code base-2.html}…; each page has the intro, a pager and
 * up to {@link HtmlReport#ROWS_PER_PAGE} rows.
 */
final class Paged {
    private final Site site;
    private final String base;
    private final String title;
    private final String intro;
    private final String header;
    private final int pageCount;
    private final StringBuilder rows = new StringBuilder();
    private int inPage;
    private int page = 1;

    Paged(Site site, String base, String title, String intro, String header, long total) {
        this.site = site;
        this.base = base;
        this.title = title;
        this.intro = intro;
        this.header = header;
        this.pageCount = (int) Math.max(1, (total + HtmlReport.ROWS_PER_PAGE - 1) / HtmlReport.ROWS_PER_PAGE);
    }

    static String file(String base, int page) {
        return page == 1 ? base + ".html" : base + "-" + page + ".html";
    }

    void add(String rowHtml) throws IOException {
        rows.append(rowHtml);
        if (++inPage == HtmlReport.ROWS_PER_PAGE) {
            flush();
        }
    }

    void finish() throws IOException {
        if (inPage > 0 || page == 1) {
            flush();
        }
    }

    private void flush() throws IOException {
        StringBuilder b = new StringBuilder("<h1>").append(esc(title)).append("</h1>\n").append(intro);
        String pager = pager();
        b.append(pager);
        if (inPage == 0) {
            b.append("<p>None.</p>\n");
        } else {
            b.append("<table>\n").append(header).append(rows).append("</table>\n");
        }
        b.append(pager);
        site.page(file(base, page), title + (pageCount > 1 ? " — page " + page + " of " + pageCount : ""),
                b.toString());
        rows.setLength(0);
        inPage = 0;
        page++;
    }

    private String pager() {
        if (pageCount == 1) {
            return "";
        }
        StringBuilder b = new StringBuilder("<p class=\"pager\">Page ").append(page).append(" of ")
                .append(pageCount).append(" (").append(HtmlReport.ROWS_PER_PAGE).append(" rows a page): ");
        for (int p = 1; p <= pageCount; p++) {
            if (p == page) {
                b.append("<span>").append(p).append("</span>");
            } else {
                b.append("<a href=\"").append(file(base, p)).append("\">").append(p).append("</a>");
            }
        }
        return b.append("</p>\n").toString();
    }
}
