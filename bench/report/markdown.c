/* Markdown to HTML (bench/report/markdown.h): blocks a line at a time (a heading, a table, a list, or
 * else a paragraph up to a blank line or the next block), then the inline marks of each block's
 * text. Only what the report pages and the study tables write is recognised: unknown syntax
 * stays visible as text instead of being guessed at. */
#include "markdown.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/base/error.h"

/* One line of the input, without its line end. */
typedef struct span {
    const char *s;
    size_t n;
} span;

typedef struct converter {
    FILE *out;
    const char *image_dir;
    int failed; /* an image could not be embedded; sb_error says why */
} converter;

static void put_escaped(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *entity = s[i] == '&'   ? "&amp;"
                             : s[i] == '<' ? "&lt;"
                             : s[i] == '>' ? "&gt;"
                             : s[i] == '"' ? "&quot;"
                                           : NULL;
        if (entity)
            fputs(entity, f);
        else if (s[i] != '\r')
            fputc(s[i], f);
    }
}

void sb_html_text(FILE *out, const char *text)
{
    put_escaped(out, text, strlen(text));
}

static void put_base64(FILE *out, const unsigned char *b, size_t n)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)b[i] << 16 | (i + 1 < n ? (unsigned)b[i + 1] << 8 : 0) |
                     (i + 2 < n ? b[i + 2] : 0);
        fputc(digits[v >> 18 & 63], out);
        fputc(digits[v >> 12 & 63], out);
        fputc(i + 1 < n ? digits[v >> 6 & 63] : '=', out);
        fputc(i + 2 < n ? digits[v & 63] : '=', out);
    }
}

static int hex_digit(char ch)
{
    return ch >= '0' && ch <= '9'   ? ch - '0'
           : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
           : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                    : -1;
}

/* A link destination's %XX (bench/report/report.c writes a figure's path so) as its byte; a '%' not
 * followed by two hex digits, or %00, stays as it is. */
static size_t percent_decode(const char *s, size_t n, char *out, size_t cap)
{
    size_t len = 0;
    for (size_t i = 0; i < n && len + 1 < cap; i++) {
        int hi = i + 2 < n ? hex_digit(s[i + 1]) : -1, lo = i + 2 < n ? hex_digit(s[i + 2]) : -1;
        if (s[i] == '%' && hi >= 0 && lo >= 0 && (hi || lo)) {
            out[len++] = (char)(hi << 4 | lo);
            i += 2;
        } else {
            out[len++] = s[i];
        }
    }
    out[len] = '\0';
    return len;
}

/* Text with markdown's backslash escapes ("\]") undone, HTML-escaped: an image's alt. */
static void put_unescaped(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n && ispunct((unsigned char)s[i + 1]))
            i++;
        put_escaped(f, s + i, 1);
    }
}

/* <img> with the file's bytes in a data: URI: the HTML page needs no file beside it. */
static void embed_image(converter *c, const char *alt, size_t alt_n, const char *src, size_t src_n)
{
    char path[8192], decoded[4096];
    percent_decode(src, src_n, decoded, sizeof decoded);
    int absolute = decoded[0] == '/';
    snprintf(path, sizeof path, "%s%s%s", absolute ? "" : c->image_dir, absolute ? "" : "/",
             decoded);
    size_t len = strlen(path);
    if (len < 4 || strcmp(path + len - 4, ".png") != 0) {
        sb_fail("%s: only PNG figures are embedded in the HTML page", path);
        c->failed = 1;
        return;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        sb_fail("%s: cannot read the figure: %s", path, strerror(errno));
        c->failed = 1;
        return;
    }
    fputs("<img alt=\"", c->out);
    put_unescaped(c->out, alt, alt_n);
    fputs("\" src=\"data:image/png;base64,", c->out);
    unsigned char chunk[3 * 4096]; /* a multiple of 3: only the last chunk is padded */
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        put_base64(c->out, chunk, got);
    if (ferror(f)) {
        sb_fail("%s: cannot read the figure", path);
        c->failed = 1;
    }
    fclose(f);
    fputs("\">", c->out);
}

static size_t find_char(const char *s, size_t from, size_t n, char ch)
{
    while (from < n && s[from] != ch)
        from++;
    return from;
}

/* find_char, a backslash-escaped ch ("\]") passed over. */
static size_t find_unescaped(const char *s, size_t from, size_t n, char ch)
{
    while (from < n && s[from] != ch)
        from += s[from] == '\\' && from + 1 < n ? 2 : 1;
    return from < n ? from : n;
}

/* Where the emphasis opened before s[from] closes: the next "**" (width 2) or lone '*' (width
 * 1) that follows a non-blank, code spans skipped; n when it does not close. */
static size_t closing_star(const char *s, size_t from, size_t n, size_t width)
{
    for (size_t j = from; j + width <= n; j++) {
        if (s[j] == '`') {
            size_t end = find_char(s, j + 1, n, '`');
            if (end < n)
                j = end;
            continue;
        }
        if (s[j] != '*')
            continue;
        int pair = j + 1 < n && s[j + 1] == '*';
        if (j > from && !isspace((unsigned char)s[j - 1]) && pair == (width == 2))
            return j;
        j += pair; /* a "**" is not the '*' an italic waits for */
    }
    return n;
}

static void put_inline(converter *c, const char *s, size_t n);

/* "![alt](src)" or "![alt](<src>)" at s (alt's "\]" is a ']', src's %XX a byte): embeds it and
 * returns its length; 0 when s does not hold one. */
static size_t image(converter *c, const char *s, size_t n)
{
    size_t alt_end = find_unescaped(s, 2, n, ']');
    if (alt_end + 1 >= n || s[alt_end + 1] != '(')
        return 0;
    size_t src = alt_end + 2, src_end, end;
    if (src < n && s[src] == '<') {
        src_end = find_char(s, ++src, n, '>');
        end = src_end + 1;
    } else {
        for (src_end = src; src_end < n && s[src_end] != ')' && !isspace((unsigned char)s[src_end]);
             src_end++)
            ;
        end = src_end;
    }
    if (end >= n || s[end] != ')' || src_end == src)
        return 0;
    embed_image(c, s + 2, alt_end - 2, s + src, src_end - src);
    return end + 1;
}

static void put_inline(converter *c, const char *s, size_t n)
{
    FILE *out = c->out;
    for (size_t i = 0, end, len; i < n && !c->failed;) {
        char ch = s[i], next = i + 1 < n ? s[i + 1] : '\0';
        if (ch == '\\' && ispunct((unsigned char)next)) {
            put_escaped(out, s + i + 1, 1);
            i += 2;
        } else if (ch == '`' && (end = find_char(s, i + 1, n, '`')) < n) {
            fputs("<code>", out);
            put_escaped(out, s + i + 1, end - i - 1);
            fputs("</code>", out);
            i = end + 1;
        } else if (ch == '!' && next == '[' && (len = image(c, s + i, n - i)) > 0) {
            i += len;
        } else if (ch == '*' && next == '*' && i + 2 < n && !isspace((unsigned char)s[i + 2]) &&
                   (end = closing_star(s, i + 2, n, 2)) < n) {
            fputs("<strong>", out);
            put_inline(c, s + i + 2, end - i - 2);
            fputs("</strong>", out);
            i = end + 2;
        } else if (ch == '*' && next != '*' && !isspace((unsigned char)next) && next &&
                   (end = closing_star(s, i + 1, n, 1)) < n) {
            fputs("<em>", out);
            put_inline(c, s + i + 1, end - i - 1);
            fputs("</em>", out);
            i = end + 1;
        } else {
            put_escaped(out, s + i, 1);
            i++;
        }
    }
}

/* ---- blocks ---- */

static span trimmed(span l)
{
    while (l.n && isspace((unsigned char)l.s[0]))
        l.s++, l.n--;
    while (l.n && isspace((unsigned char)l.s[l.n - 1]))
        l.n--;
    return l;
}

static int is_blank(span l)
{
    return trimmed(l).n == 0;
}

/* 1..6 for "# ..." to "###### ...", else 0. */
static int heading_level(span l)
{
    int level = 0;
    while ((size_t)level < l.n && l.s[level] == '#')
        level++;
    return level >= 1 && level <= 6 && ((size_t)level == l.n || l.s[level] == ' ') ? level : 0;
}

static int is_item(span l)
{
    return l.n >= 2 && l.s[0] == '-' && l.s[1] == ' ';
}

static int is_table_row(span l)
{
    span t = trimmed(l);
    return t.n && t.s[0] == '|';
}

/* |---|:--:| */
static int is_delimiter_row(span l)
{
    span t = trimmed(l);
    int dash = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (!strchr("|-: ", t.s[i]))
            return 0;
        dash |= t.s[i] == '-';
    }
    return dash && is_table_row(t);
}

static int starts_table(const span *lines, size_t i, size_t n)
{
    return is_table_row(lines[i]) && i + 1 < n && is_delimiter_row(lines[i + 1]);
}

static int starts_block(const span *lines, size_t i, size_t n)
{
    return heading_level(lines[i]) || is_item(lines[i]) || starts_table(lines, i, n);
}

/* One row of a pipe table: cells between the '|' that are neither escaped nor in code. */
static void put_row(converter *c, span l, const char *tag)
{
    span t = trimmed(l);
    t.s++, t.n--; /* the leading '|' */
    if (t.n && t.s[t.n - 1] == '|' && !(t.n >= 2 && t.s[t.n - 2] == '\\'))
        t.n--;
    fputs("<tr>", c->out);
    size_t start = 0;
    for (size_t i = 0; i <= t.n; i++) {
        if (i < t.n && t.s[i] == '\\') {
            i++;
            continue;
        }
        if (i < t.n && t.s[i] == '`') {
            size_t end = find_char(t.s, i + 1, t.n, '`');
            i = end < t.n ? end : i;
            continue;
        }
        if (i < t.n && t.s[i] != '|')
            continue;
        span cell = trimmed((span){t.s + start, i - start});
        fprintf(c->out, "<%s>", tag);
        put_inline(c, cell.s, cell.n);
        fprintf(c->out, "</%s>", tag);
        start = i + 1;
    }
    fputs("</tr>\n", c->out);
}

/* The text from lines[i] on until a blank line or the next block (a paragraph's, or a list
 * item's with its continuation lines); *i moves past it. */
static span block_text(const span *lines, size_t *i, size_t n, size_t skip)
{
    span text = {lines[*i].s + skip, lines[*i].n - skip};
    for ((*i)++; *i < n && !is_blank(lines[*i]) && !starts_block(lines, *i, n); (*i)++)
        text.n = (size_t)(lines[*i].s + lines[*i].n - text.s);
    return text;
}

int sb_markdown_to_html(FILE *out, const char *markdown, const char *image_dir)
{
    size_t n = 1;
    for (const char *p = markdown; *p; p++)
        n += *p == '\n';
    span *lines = malloc(n * sizeof *lines);
    if (!lines)
        return sb_fail("out of host memory converting a page to HTML");
    n = 0;
    for (const char *p = markdown;;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        lines[n++] = (span){p, len && p[len - 1] == '\r' ? len - 1 : len};
        if (!end)
            break;
        p = end + 1;
    }
    converter c = {out, image_dir, 0};
    for (size_t i = 0; i < n && !c.failed;) {
        int level = heading_level(lines[i]);
        if (is_blank(lines[i])) {
            i++;
        } else if (level) {
            span text = trimmed((span){lines[i].s + level, lines[i].n - (size_t)level});
            fprintf(out, "<h%d>", level);
            put_inline(&c, text.s, text.n);
            fprintf(out, "</h%d>\n", level);
            i++;
        } else if (starts_table(lines, i, n)) {
            fputs("<table>\n<thead>\n", out);
            put_row(&c, lines[i], "th");
            fputs("</thead>\n<tbody>\n", out);
            for (i += 2; i < n && is_table_row(lines[i]); i++)
                put_row(&c, lines[i], "td");
            fputs("</tbody>\n</table>\n", out);
        } else if (is_item(lines[i])) {
            fputs("<ul>\n", out);
            while (i < n && is_item(lines[i]) && !c.failed) {
                span text = block_text(lines, &i, n, 2);
                fputs("<li>", out);
                put_inline(&c, text.s, text.n);
                fputs("</li>\n", out);
            }
            fputs("</ul>\n", out);
        } else {
            span text = block_text(lines, &i, n, 0);
            fputs("<p>", out);
            put_inline(&c, text.s, text.n);
            fputs("</p>\n", out);
        }
    }
    free(lines);
    return c.failed ? -1 : 0;
}
