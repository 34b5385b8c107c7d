/* Workload parameters: each workload declares its parameters (name, type, default, range); users
 * set them with --param name=value; every value is checked against its declaration. */
#ifndef SB_PARAMS_H
#define SB_PARAMS_H

#ifdef __cplusplus
extern "C" {
#endif

#define SB_MAX_PARAMS 48
#define SB_PARAM_TEXT 1024

typedef enum sb_param_type {
    SB_PARAM_INT,    /* integer within [min, max] */
    SB_PARAM_FLOAT,  /* finite number within [min, max] */
    SB_PARAM_CHOICE, /* one of the '|'-separated words in choices */
    SB_PARAM_PATH,   /* a file path (existence is checked by the workload when it loads) */
    SB_PARAM_TEXT_T  /* free text */
} sb_param_type;

typedef struct sb_param_decl {
    const char *name;
    sb_param_type type;
    const char *def;     /* default as text; NULL = unset unless given */
    double min, max;     /* INT and FLOAT only */
    const char *choices; /* CHOICE: the allowed words, "sync|async"; TEXT and PATH: named
                            presets the workload takes in place of a file ("m1|m2|m3|m4"),
                            NULL for none (not checked here: the workload says what else) */
    const char *help;    /* one line */
} sb_param_decl;

typedef struct sb_param_value {
    char text[SB_PARAM_TEXT]; /* "" when unset */
    double num;               /* INT and FLOAT */
    int is_set;               /* has a value (default or given) */
    int given;                /* given by the user (part of the benchmark's name) */
} sb_param_value;

typedef struct sb_params {
    const sb_param_decl *decls;
    int n;
    sb_param_value v[SB_MAX_PARAMS];
} sb_params;

/* Loads the defaults. */
void sb_params_init(sb_params *p, const sb_param_decl *decls, int n);
/* "name=value": unknown names, bad types and out-of-range values fail with a message that names
 * the parameter and what it accepts. */
int sb_params_assign(sb_params *p, const char *assignment);
int sb_params_set(sb_params *p, const char *name, const char *value);

int sb_param_is_set(const sb_params *p, const char *name);
const char *sb_param_text(const sb_params *p, const char *name);
double sb_param_num(const sb_params *p, const char *name);
/* "t_max:240/start:sync": the given parameters in declaration order, paths by base name. */
void sb_params_name(const sb_params *p, char *out, unsigned cap);

#ifdef __cplusplus
}
#endif

#endif
