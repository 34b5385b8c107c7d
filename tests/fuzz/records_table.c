/* Fuzz target: records files as a study's tables read them (bench/report/table*.c, sb_table_render), the
 * path of `stagebench study FILE` after its runs and of --figures-only. A fixed study (below,
 * after motility-paper.study's tables) is parsed and checked once, as study.c does before its
 * first run, against a stand-in workload with motility's parameters, phases and variant names;
 * each input is then the records file of its run `small` and of its `records mpi` line, and
 * every table is made from it: cells, ratios, notes, explanations with every fact, goals. The
 * parser is static in study.c, so study.c is included here. */
#include "fuzz.h"

#include "bench/report/study.c"

static const sb_param_decl params[] = {
    {"outer", SB_PARAM_INT, "64", 4, 4096, NULL, ""},
    {"inner", SB_PARAM_INT, "16", 4, 4096, NULL, ""},
    {"steps", SB_PARAM_INT, "1", 1, 1e9, NULL, ""},
    {"gpus", SB_PARAM_INT, NULL, 1, 64, NULL, ""},
    {"layers", SB_PARAM_INT, "8", 1, 1024, NULL, ""},
};
static const char *const phases[] = {"psi", "micro", "force", "fluid", "transfers", NULL};
static const sb_variant variants[] = {
    {.name = "cpu-reference"}, {.name = "original"},       {.name = "resident"},
    {.name = "optimized"},     {.name = "optimized-fp64"}, {.name = "gpu-macro"},
    {.name = "multi-gpu"},     {.name = "mpi"},
};
static const sb_workload workload = {
    .name = "motility",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .variants = variants,
    .nvariants = sizeof variants / sizeof variants[0],
    .csv_phases = phases,
};

/* harness/registry.c's, which would bring every workload (and the GPU code) with it. */
const sb_variant *sb_find_variant(const sb_workload *w, const char *name)
{
    for (int i = 0; i < w->nvariants; i++)
        if (strcmp(w->variants[i].name, name) == 0)
            return &w->variants[i];
    return NULL;
}

static const char study_text[] =
    "study fuzz-tables\n"
    "workload motility\n"
    "run small\n"
    "  param steps=2\n"
    "  sweep outer:inner=64:16,64:32\n"
    "run scale\n"
    "  param steps=2\n"
    "  sweep outer:inner=64:16\n"
    "  sweep gpus=2,4\n"
    "records mpi mpi-*.json \"mpirun -np 2 stagebench run motility --variant mpi\"\n"
    "records absent absent-*.json \"nothing writes these\"\n"
    "table t2 from=small cols=outer,inner col-label={outer}²×{inner}² per=steps unit=ms "
    "title=\"original against the restructured stages\"\n"
    "  row \"total: original\" variant=original value=time\n"
    "  row \"total: resident\" variant=resident value=time speedup=original\n"
    "  row \"total: optimized\" variant=optimized value=time speedup=original\n"
    "  published \"total: optimized\" \"332 (7.16)\" \"854 (8.76)\"\n"
    "  explain \"total: optimized\" \"{ratio}× (paper {published}) at {col} in {unit} against "
    "{base_variant}: {base_value}, {base_phase:transfers}, {param:steps} steps, {base_h2d} in, "
    "{base_d2h} out, {h2d}, {d2h}, {base_phase:micro} + {phase:force}, "
    "{base_output:inner_steps_per_tail} against {output:inner_steps_per_tail}, {bytes} "
    "against {base_bytes}, {value/base}, {phase:psi/base}\"\n"
    "  row \"M_b and F\" variant=optimized value=phase:micro+force speedup=original "
    "kernel=micro_*\n"
    "  explain \"M_b and F\" \"{kernel} on {device}: {registers} registers, {occupancy} "
    "({limiter}), {blocks_per_sm} blocks, {local_bytes} local, {block_threads} threads, "
    "{fp64_ratio}:1, {sm_count} SMs; {base_kernel} {base_registers}; {bytes/base}× the bytes, "
    "{transfers/base}× the transfers, {value_bw}, {value_pct_peak}, {base_value_bw}\"\n"
    "  row wall variant=resident value=wall ratio=optimized base-value=time base-where=outer=64\n"
    "  explain wall at=64,32 \"{samples} samples, {noise} noise, {status} {reason} {variant}: "
    "{items} items, {items_per_second}/s, {steady:items_per_second}, {bytes_per_second}, "
    "{pct_peak}, {memory}, {d2d}, {peer}, {transfers}, {base_status}\"\n"
    "  row steady variant=gpu-macro value=steady\n"
    "  explain steady \"{value}, {value_bw}, {steady:simulated_seconds_per_hour}, "
    "{steady:pct_peak_dram}\"\n"
    "  row mem variant=optimized value=memory ratio=resident\n"
    "  row share variant=optimized value=phase:micro ratio=optimized base-value=time\n"
    "  explain share \"{ratio} of {base_value}\"\n"
    "  goal \"total: optimized\" at=64,32 >= 5 \"optimized at least 5× the original\"\n"
    "  goal \"M_b and F\" of=registers <= 64 \"at most 64 registers\"\n"
    "  goal mem < 1e9 \"under a GB\"\n"
    "  goal wall > 0.5 \"a ratio\"\n"
    "  goal steady of=items_per_second >= 1e9 \"fast\"\n"
    "  goal share at=64,16 of=value_pct_peak > 10 \"a share of the peak\"\n"
    "  note \"a note under the table\"\n"
    "table t4 from=small,scale,mpi,absent cols=outer,inner columns=64:16,64:32,128:32 "
    "col-label={outer}/{inner}/{nothing} value=time per=steps unit=us speedup=original\n"
    "  row \"1 GPU\" variant=optimized from=small\n"
    "  row \"2 GPUs\" variant=multi-gpu where=gpus=2\n"
    "  row mpi variant=mpi from=mpi base-where=outer=64,inner=16\n"
    "  row absent variant=optimized from=absent\n"
    "  published mpi 1 2 3\n"
    "  explain \"2 GPUs\" \"{ratio}×, {transfers} copied ({param:gpus} GPUs, {published})\"\n"
    "  explain mpi \"{device}, {base_device}, {fp64_ratio}\"\n"
    "  goal mpi < 2 \"a speed-up below 2\"\n"
    "table t3 from=small,mpi cols=inner value=phase:micro per=layers unit=s ratio=optimized "
    "kernel=micro_*,*\n"
    "  row optimized\n"
    "  row optimized-fp64\n"
    "  explain optimized-fp64 \"{ratio}× slower, {bytes/base}×, {kernel} against "
    "{base_kernel}, {occupancy/base}\"\n"
    "  goal optimized-fp64 <= 3 \"at most 3×\"\n";

static study s; /* large: not on the stack */
static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *path =
        sb_fuzz_write("fuzz.study", (const uint8_t *)study_text, sizeof study_text - 1);
    if (parse(&s, path, NULL, 0) != 0 || check_study(&s, &workload) != 0) {
        fprintf(stderr, "fuzz: the target's own study: %s\n", sb_error());
        abort();
    }
    if (!(devnull = fopen("/dev/null", "w"))) {
        perror("fuzz: /dev/null");
        abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *run = sb_fuzz_write("small.json", data, size);
    const char *mpi = sb_fuzz_write("mpi-np2.json", data, size);
    for (int i = 0; i < s.ntables; i++)
        if (sb_table_render(&s.tables[i], s.sources, s.nsources, sb_fuzz_dir, devnull) != 0)
            sb_fuzz_refused(strncmp(sb_error(), mpi, strlen(mpi)) == 0 ? mpi : run);
    return 0;
}
