/* JSON through jansson, and atomic file writes (temp file + rename: a reader never sees half a
 * file, and a failed write leaves the old file in place). */
#ifndef SB_JSON_H
#define SB_JSON_H

#include <glob.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#ifdef __cplusplus
extern "C" {
#endif

/* path.tmp.<pid>, written, flushed and synced, then renamed over path, and the directory
 * synced: a process killed at any moment (SIGKILL included) leaves either the old complete file
 * or the new complete one, and perhaps a path.tmp.<pid> that readers ignore (sb_is_temp_file). */
int sb_write_atomic(const char *path, const char *data, size_t len);
/* 1 when path's name ends in .tmp.<digits>: a write's temporary file, never records (a process
 * killed mid-write leaves one behind; `study --resume` removes them). */
int sb_is_temp_file(const char *path);
/* What fill(f, a, b) prints, written to path atomically (nothing on a fill error). */
int sb_write_stream_atomic(const char *path, int (*fill)(FILE *f, const void *a, const void *b),
                           const void *a, const void *b);
int sb_json_write_atomic(const char *path, const json_t *doc);
/* Loads a records file; the message names the file, and the line for syntax errors. A temporary
 * file (sb_is_temp_file) is refused. A name ending in .xz is read through liblzma: large records
 * are committed compressed (xz -9e FILE.json), and every command reads them as they are. */
json_t *sb_json_load(const char *path);
/* The whole of an .xz file, decompressed and NUL-terminated (free it); *len its length when len
 * is not NULL. NULL after a message naming the file (not xz, truncated, corrupt, unreadable). */
char *sb_read_xz(const char *path, size_t *len);
/* glob(3) of a records pattern: where "X.json" matches nothing, "X.json.xz" (records committed
 * compressed). glob's return value; g to globfree when 0. */
int sb_glob_records(const char *pattern, glob_t *g);
/* The length of a records file's name without .json or .json.xz (committed records are
 * compressed, and their CSV view is X.csv either way); another name without its last extension.
 * Every name derived from a records file's (its CSV view, a repetition's file) goes through it. */
size_t sb_records_stem(const char *path);
/* X.json or X.json.xz -> X<ext> ("X.csv"), written to out. */
void sb_records_sibling(const char *records, const char *ext, char *out, size_t cap);
/* 1 when name ends in .json or .json.xz (a records file's name, compressed or not). */
int sb_is_json_name(const char *name);
/* Creates the directory part of path (mkdir -p). */
int sb_make_parent_dirs(const char *path);
/* Removes the files in folder dir (not its subfolders), leaving it empty of them. */
void sb_remove_dir_files(const char *dir);
/* PATH cut, in place, to the folder that holds it: "a/b" -> "a", "/b" -> "/", "b" -> ".". */
void sb_cut_to_folder(char *path);

/* A valid record's time to be read with care, as study tables (a dagger) and figures (a ringed
 * point, a note) mark it: one timed sample (its spread unmeasured), or noise above
 * SB_CAUTION_NOISE (time.noise: the samples' standard deviation over their mean). */
#define SB_CAUTION_NOISE 0.05
/* 1 when `stagebench` (a record's "stagebench" object) is such a record: status "valid" and
 * time.samples of one value, or time.noise above SB_CAUTION_NOISE; else 0. */
int sb_record_caution(const json_t *stagebench);

#ifdef __cplusplus
}
#endif

#endif
