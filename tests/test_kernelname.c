/* Kernels' short names (cuda/kernelname.c) from symbols as nvcc 13.0 mangles them: this suite's
 * own kernels (plain, templated, static in relocatable device code), CUB's and an extended
 * lambda's; names it cannot read come back whole, and no name is read or written out of
 * bounds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cuda/kernelname.h"

/* CUB's scan kernel as CUDA 13.0 builds it for sm_90: CCCL's ABI namespace CUB_300001_SM_900,
 * substitutions and template parameters in the arguments. */
#define CUB_SCAN                                                                                   \
    "_ZN3cub17CUB_300001_SM_9006detail4scan16DeviceScanKernelINS2_10policy_hubIiiijN4cuda3std3__"  \
    "44plusIvEEE10Policy1000EPiSC_NS0_13ScanTileStateIiLb1EEES9_NS1_10InputValueIiSC_EEjiLb0EiEEv" \
    "T0_T1_T2_iT3_T4_T5_"
/* cub::DeviceRunLengthEncode's kernel, thrust's versioned namespace among its arguments. */
#define CUB_REDUCE_BY_KEY                                                                          \
    "_ZN3cub17CUB_300001_SM_9006detail6reduce23DeviceReduceByKeyKernelINS1_3rle6encode10policy_h"  \
    "ubIidE10Policy1000EPdS9_N6thrust23THRUST_300001_SM_900_NS17constant_iteratorIiiNSB_11use_de"  \
    "faultEEEPiSF_NS0_24ReduceByKeyScanTileStateIiiLb1EEEN4cuda3std3__48equal_toIvEENSK_4plusIvE"  \
    "EiiEEvT0_T1_T2_T3_T4_T5_iT6_T7_T8_"

static const struct {
    const char *symbol, *short_name;
} readable[] = {
    {"_Z10bin_kernel7ag_gridiPK7ag_cellPiS3_", "bin_kernel"},
    {"_ZL12place_kernel7ag_gridiiPK7ag_cellPKiS4_PiP6float4P6float2", "place_kernel"}, /* static */
    {"_Z5sweepI8packed32Li0EEvPKNT_6site_tEPS2_7rd_stepi", "sweep"},
    {"_Z12level_kernelILb1ELb0EEvPK10level_argsijm", "level_kernel"},
    {CUB_SCAN, "cub::detail::scan::DeviceScanKernel"},
    {"_ZN3cub6detail4scan16DeviceScanKernelINS1_10policy_hubIiiijN4cuda3std3__44plusIvEEE10Polic"
     "y1000EPiS9_NS_13ScanTileStateIiLb1EEES6_NS0_10InputValueIiS9_EEjiLb0EiEEvT0_T1_T2_iT3_T4_T5_",
     "cub::detail::scan::DeviceScanKernel"},
    {CUB_REDUCE_BY_KEY, "cub::detail::reduce::DeviceReduceByKeyKernel"},
    {"_ZN3cub17CUB_300001_SM_9006detail11EmptyKernelIvEEvv", "cub::detail::EmptyKernel"},
    /* a template over an extended __device__ lambda (a local closure type) */
    {"_Z5applyIZ2goPiPfiEUlS0_E_EvT_S0_", "apply"},
    /* static kernels of relocatable device code (this suite's build): nvcc's module prefix */
    {"__nv_static_33__f2b4fdda_11_resident_cu_606af134__Z16cell_cell_kernel7ag_laws7ag_gridiiPK6f"
     "loat4PK6float2PKiS8_P7ag_cellPy",
     "cell_cell_kernel"},
    {"__nv_static_48__754a3922_26_a_much_longer_file_name_cu_29faa990__ZN59_GLOBAL__N__754a3922_"
     "26_a_much_longer_file_name_cu_29faa99011anon_kernelEPi",
     "(anonymous namespace)::anon_kernel"},
    {"_ZN12_GLOBAL__N_16kernelEPi", "(anonymous namespace)::kernel"},
    {"_ZN2nsL6kernelEPi", "ns::kernel"},       /* static, in a namespace */
    {"_ZN2ns6kernelB5cxx11Ev", "ns::kernel"},  /* an ABI tag */
    {"_Z6kernelv", "kernel"},
    {"_Z6kernel", "kernel"},                   /* no parameter list */
};

/* Not Itanium-mangled, or mangled beyond what a kernel's name uses, or cut short: copied whole. */
static const char *const copied[] = {
    "plain_c_kernel",
    "",
    "_Z",
    "_ZN",
    "_ZN3cub",                      /* a nested name without its end */
    "_ZN3cub6det",                  /* an identifier cut short */
    "_Z999kernel",                  /* a length past the end */
    "_Z18446744073709551617kernel", /* a length past any size_t */
    "_ZTV3Foo",                     /* a vtable */
    "_ZZ4mainE1s",                  /* a local entity */
    "_ZNSt6vectorIiSaIiEE4sizeEv",  /* std::: never a kernel's namespace */
    "_ZN3FooC2Ev",                  /* a constructor */
    "__nv_static_99__x_Z6kernelv",  /* a module prefix longer than the symbol */
    "__nv_static_2__abc_Z6kernelv", /* no "_Z" after the module prefix */
};

static void readable_names(void **unused)
{
    (void)unused;
    char out[256];
    for (size_t i = 0; i < sizeof readable / sizeof readable[0]; i++)
        assert_string_equal(sb_kernel_short_name(readable[i].symbol, out, sizeof out),
                            readable[i].short_name);
}

static void unreadable_names_come_back_whole(void **unused)
{
    (void)unused;
    char out[256];
    for (size_t i = 0; i < sizeof copied / sizeof copied[0]; i++)
        assert_string_equal(sb_kernel_short_name(copied[i], out, sizeof out), copied[i]);
}

static void unprintable_bytes_become_question_marks(void **unused)
{
    (void)unused;
    char out[64];
    assert_string_equal(sb_kernel_short_name("\x01kernel\xc3\xa9", out, sizeof out),
                        "?kernel??");
    assert_string_equal(sb_kernel_short_name("_Z7kern\xffl\x01v", out, sizeof out), "kern?l?");
}

/* Every cut of the output buffer, guard bytes around it: nothing written past cap, always
 * NUL-terminated, the short name's first cap - 1 bytes. */
static void short_buffers_cut_the_name(void **unused)
{
    (void)unused;
    const char *whole = "cub::detail::scan::DeviceScanKernel";
    char buf[80];
    for (size_t cap = 0; cap <= strlen(whole) + 2; cap++) {
        memset(buf, '#', sizeof buf);
        sb_kernel_short_name(CUB_SCAN, buf + 8, cap);
        for (size_t i = 0; i < 8; i++)
            assert_int_equal(buf[i], '#');
        for (size_t i = 8 + cap; i < sizeof buf; i++)
            assert_int_equal(buf[i], '#');
        if (cap == 0)
            continue;
        size_t want = cap - 1 < strlen(whole) ? cap - 1 : strlen(whole);
        assert_int_equal(strlen(buf + 8), want);
        assert_memory_equal(buf + 8, whole, want);
    }
}

/* Each symbol cut at every length, in a heap block of exactly that size (so that a read past
 * its end is caught by a memory checker): the whole symbol's short name, or the cut symbol. */
static void cut_symbols_are_read_in_bounds(void **unused)
{
    (void)unused;
    char out[256];
    for (size_t i = 0; i < sizeof readable / sizeof readable[0]; i++) {
        const char *symbol = readable[i].symbol;
        for (size_t n = 0; n <= strlen(symbol); n++) {
            char *cut = malloc(n + 1);
            assert_non_null(cut);
            memcpy(cut, symbol, n);
            cut[n] = '\0';
            sb_kernel_short_name(cut, out, sizeof out);
            if (strcmp(out, cut) != 0)
                assert_string_equal(out, readable[i].short_name);
            free(cut);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(readable_names),
        cmocka_unit_test(unreadable_names_come_back_whole),
        cmocka_unit_test(unprintable_bytes_become_question_marks),
        cmocka_unit_test(short_buffers_cut_the_name),
        cmocka_unit_test(cut_symbols_are_read_in_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
