/* Short names of kernels from Itanium-mangled symbols: only as much of the grammar as a kernel's
 * name uses. A kernel is a function at namespace scope, never a class member, so its name is a
 * list of identifiers (namespaces, then the function) in which only the last can carry template
 * arguments: the name ends at the first template argument list (I...E) or at the end of the
 * nested name (E), and nothing after it (the arguments, the parameter types) is read. */
#include "kernelname.h"

#include <ctype.h>
#include <string.h>

/* What is left of the symbol, [p, end), and the short name written so far. */
typedef struct reader {
    const char *p, *end;
    char *out;
    size_t cap, len;
} reader;

static void put(reader *r, const char *text, size_t n)
{
    for (; n > 0 && r->len + 1 < r->cap; n--, text++)
        r->out[r->len++] = *text >= ' ' && *text <= '~' ? *text : '?';
    r->out[r->len] = '\0';
}

static int next_is(const reader *r, char c)
{
    return r->p < r->end && *r->p == c;
}

/* <number> as a length: 0 when there is none, or when it runs past the end of the symbol. */
static size_t length(reader *r)
{
    size_t n = 0;
    while (r->p < r->end && isdigit((unsigned char)*r->p)) {
        n = 10 * n + (size_t)(*r->p++ - '0');
        if (n > (size_t)(r->end - r->p))
            return 0;
    }
    return n;
}

/* CCCL's ABI namespace: uppercase letters, '_', a version, then "_SM_" and the architectures
 * (CUB_300001_SM_900, THRUST_300001_SM_900_NS). */
static int is_cccl_abi_namespace(const char *id, size_t n)
{
    size_t i = 0;
    while (i < n && isupper((unsigned char)id[i]))
        i++;
    if (i == 0 || i == n || id[i] != '_')
        return 0;
    size_t version = ++i;
    while (i < n && isdigit((unsigned char)id[i]))
        i++;
    return i > version && n - i >= 4 && memcmp(id + i, "_SM_", 4) == 0;
}

/* <source-name> ::= <length> <identifier>: one component of the short name. */
static int source_name(reader *r)
{
    static const char anonymous[] = "_GLOBAL__N"; /* how an anonymous namespace is mangled */
    size_t n = length(r);
    if (n == 0)
        return 0;
    const char *id = r->p;
    r->p += n;
    if (is_cccl_abi_namespace(id, n))
        return 1;
    if (r->len > 0)
        put(r, "::", 2);
    if (n >= sizeof anonymous - 1 && memcmp(id, anonymous, sizeof anonymous - 1) == 0)
        put(r, "(anonymous namespace)", strlen("(anonymous namespace)"));
    else
        put(r, id, n);
    return 1;
}

/* [L] <source-name> <abi-tag>*: L marks internal linkage (a static kernel); ABI tags
 * (B <source-name>, e.g. B5cxx11) are left out of the short name. */
static int unqualified_name(reader *r)
{
    if (next_is(r, 'L'))
        r->p++;
    if (!source_name(r))
        return 0;
    while (next_is(r, 'B')) {
        r->p++;
        size_t n = length(r);
        if (n == 0)
            return 0;
        r->p += n;
    }
    return 1;
}

/* <nested-name> (N <unqualified-name>+ E) or one unqualified name, each possibly followed by
 * template arguments, which end the name. */
static int name(reader *r)
{
    if (!next_is(r, 'N'))
        return unqualified_name(r);
    r->p++;
    do {
        if (!unqualified_name(r))
            return 0;
    } while (r->p < r->end && *r->p != 'E' && *r->p != 'I');
    return r->p < r->end; /* a nested name cut short is not read */
}

/* nvcc renames the static kernels of relocatable device code: "__nv_static_<n>__", n
 * characters of a module id, then the mangled name. */
static void skip_nv_static_prefix(reader *r)
{
    static const char prefix[] = "__nv_static_";
    size_t k = sizeof prefix - 1;
    if ((size_t)(r->end - r->p) <= k || memcmp(r->p, prefix, k) != 0)
        return;
    reader after = *r;
    after.p += k;
    size_t n = length(&after);
    if (n == 0 || (size_t)(after.end - after.p) < 2 + n || memcmp(after.p, "__", 2) != 0)
        return;
    after.p += 2 + n;
    *r = after;
}

const char *sb_kernel_short_name(const char *symbol, char *out, size_t cap)
{
    if (cap == 0)
        return out;
    reader r = {symbol, symbol + strlen(symbol), out, cap, 0};
    out[0] = '\0';
    skip_nv_static_prefix(&r);
    if (r.end - r.p >= 2 && memcmp(r.p, "_Z", 2) == 0) {
        r.p += 2;
        if (name(&r))
            return out;
    }
    r.len = 0;
    put(&r, symbol, strlen(symbol));
    return out;
}
