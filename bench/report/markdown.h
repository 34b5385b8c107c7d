/* Markdown to HTML for stagebench report's pages: the subset the pages and the study tables
 * (bench/report/table-render.c) are written in. Hand-written, so that the suite needs no
 * third-party code. */
#ifndef SB_MARKDOWN_H
#define SB_MARKDOWN_H

#include <stdio.h>

/* Writes the HTML of `markdown` (the body's elements, no <html> around them) to out: ATX
 * headings (#..######), paragraphs, '- ' lists, pipe tables (a header row, a |---| row, body
 * rows; \| in a cell is a '|'), **bold**, *italic*, `code`, backslash escapes and images
 * ![alt](src), whose file (src relative to image_dir) is embedded as a base64 data: URI so that
 * the page stands alone. Everything else is text, escaped. -1 (sb_fail naming the file) when an
 * image cannot be read. */
int sb_markdown_to_html(FILE *out, const char *markdown, const char *image_dir);

/* text with &, <, > and " escaped. */
void sb_html_text(FILE *out, const char *text);

#endif
