/* Fuzz target: the study file (bench/report/study.c's parser, with the table lines of bench/report/table*.c),
 * as `stagebench study FILE --check` reads it before it checks the points against the
 * workload. The parser is static in study.c, so study.c is included here. */
#include "fuzz.h"

#include "bench/report/study.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = sb_fuzz_write("fuzz.study", data, size);
    static study s; /* large: not on the stack */
    memset(&s, 0, sizeof s);
    char define_arg[] = "N=3";
    char *defines[] = {define_arg};
    /* --define N=3 where the input says ${N}: a define the file never uses is refused, which
     * would stop every other input at once */
    int ndefines = memmem(data, size, "${N}", 4) != NULL;
    if (parse(&s, path, defines, ndefines) != 0 || list_sources(&s) != 0)
        sb_fuzz_refused(path);
    return 0;
}
