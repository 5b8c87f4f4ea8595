/*
 * seed_floor: SQLite's own insert loop, the floor `instar store seed` is measured against.
 *
 * Copies the rows of every table of SOURCE (a seeded store) that is empty in TARGET (a fresh store of
 * the same schema, made by `instar store create`) into TARGET: one prepared single-row INSERT per table,
 * one transaction, every value bound with sqlite3_bind_value, page cache 64 MiB as Instar's seeding
 * uses. Rows are read from SOURCE a chunk at a time, outside the timed part, so the figure is the
 * inserts alone: the least time SQLite needs to write these rows into this schema.
 *
 * Options say how the store's constraints are kept during the load:
 *   --indexes-after  drop the filled tables' secondary indexes (those with SQL in sqlite_master) inside
 *                    the transaction and re-create them before COMMIT: one sort per index instead of a
 *                    B-tree insert per row.
 *   --fk-off         PRAGMA foreign_keys = OFF for the load (a plain C connection's default; GRDB turns
 *                    them on) and one PRAGMA foreign_key_check before COMMIT instead.
 *
 * Prints one line: "<rows> <seconds> <cpu seconds>" (wall and CPU seconds of the timed part: the
 * inserts, index drops and builds, the foreign-key check and the commit).
 * Build: cc -O2 -o seed_floor seed_floor.c -lsqlite3  (Scripts/bench-seed does this in its state folder)
 * Usage: seed_floor SOURCE TARGET [--indexes-after] [--fk-off]
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { CHUNK = 20000, MAX_TEXT = 1 << 16 };

static sqlite3 *db;

static void die(const char *what) {
    fprintf(stderr, "seed_floor: %s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
}

static void run(const char *sql) {
    char *message = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &message) != SQLITE_OK) {
        fprintf(stderr, "seed_floor: %s: %s\n", sql, message ? message : "?");
        exit(1);
    }
}

static double clock_seconds(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* CPU seconds of the timed parts too: on a machine shared with builds, wall time says little. */
static double cpu;

static double now(void) { return clock_seconds(CLOCK_MONOTONIC); }
static double cpu_now(void) { return clock_seconds(CLOCK_PROCESS_CPUTIME_ID); }

/* Appends `name` to `out` as a double-quoted SQL identifier (quotes doubled). */
static void quoted(char *out, size_t size, const char *name) {
    size_t n = strlen(out);
    if (n + 1 < size) out[n++] = '"';
    for (const char *c = name; *c && n + 2 < size; c++) {
        if (*c == '"') out[n++] = '"';
        out[n++] = *c;
    }
    if (n + 1 < size) out[n++] = '"';
    out[n] = 0;
}

/* Copies one table; adds its insert time to *seconds and returns the rows copied. */
static long copy_table(const char *table, double *seconds) {
    char sql[4096] = "SELECT * FROM src.";
    quoted(sql, sizeof sql, table);
    strcat(sql, " ORDER BY rowid");
    sqlite3_stmt *read;
    if (sqlite3_prepare_v2(db, sql, -1, &read, NULL) != SQLITE_OK) die(sql);
    int width = sqlite3_column_count(read);
    char insert[8192] = "INSERT INTO main.";
    quoted(insert, sizeof insert, table);
    strcat(insert, " VALUES (");
    for (int i = 0; i < width; i++) strcat(insert, i ? ", ?" : "?");
    strcat(insert, ")");
    sqlite3_stmt *write;
    if (sqlite3_prepare_v2(db, insert, -1, &write, NULL) != SQLITE_OK) die(insert);
    sqlite3_value **chunk = malloc(sizeof(sqlite3_value *) * (size_t)CHUNK * (size_t)width);
    long rows = 0;
    for (;;) {
        int filled = 0, step = SQLITE_ROW;
        while (filled < CHUNK && (step = sqlite3_step(read)) == SQLITE_ROW) {
            for (int c = 0; c < width; c++) chunk[filled * width + c] = sqlite3_value_dup(sqlite3_column_value(read, c));
            filled++;
        }
        if (step != SQLITE_ROW && step != SQLITE_DONE) die(sql);
        double start = now(), cpu_start = cpu_now();
        for (int r = 0; r < filled; r++) {
            for (int c = 0; c < width; c++) sqlite3_bind_value(write, c + 1, chunk[r * width + c]);
            if (sqlite3_step(write) != SQLITE_DONE) die(insert);
            sqlite3_reset(write);
        }
        *seconds += now() - start;
        cpu += cpu_now() - cpu_start;
        for (int i = 0; i < filled * width; i++) sqlite3_value_free(chunk[i]);
        rows += filled;
        if (step == SQLITE_DONE) break;
    }
    free(chunk);
    sqlite3_finalize(read);
    sqlite3_finalize(write);
    return rows;
}

static int is_empty(const char *table) {
    char sql[4096] = "SELECT 1 FROM main.";
    quoted(sql, sizeof sql, table);
    strcat(sql, " LIMIT 1");
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) die(sql);
    int empty = sqlite3_step(s) != SQLITE_ROW;
    sqlite3_finalize(s);
    return empty;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: seed_floor SOURCE TARGET [--indexes-after] [--fk-off]\n");
        return 2;
    }
    int indexes_after = 0, fk_off = 0;
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--indexes-after")) indexes_after = 1;
        else if (!strcmp(argv[i], "--fk-off")) fk_off = 1;
        else { fprintf(stderr, "seed_floor: unknown option %s\n", argv[i]); return 2; }
    }
    if (sqlite3_open(argv[2], &db) != SQLITE_OK) die(argv[2]);
    sqlite3_stmt *attach;
    if (sqlite3_prepare_v2(db, "ATTACH DATABASE ? AS src", -1, &attach, NULL) != SQLITE_OK) die("attach");
    sqlite3_bind_text(attach, 1, argv[1], -1, SQLITE_TRANSIENT);
    if (sqlite3_step(attach) != SQLITE_DONE) die(argv[1]);
    sqlite3_finalize(attach);
    run(fk_off ? "PRAGMA foreign_keys = OFF" : "PRAGMA foreign_keys = ON");
    run("PRAGMA cache_size = -65536");

    /* The tables to fill (empty in TARGET), in SOURCE's rootpage order as the Python floor did. */
    char *tables[256];
    int count = 0;
    sqlite3_stmt *list;
    if (sqlite3_prepare_v2(db, "SELECT name FROM src.sqlite_master WHERE type = 'table' "
                               "AND name NOT LIKE 'sqlite_%' ORDER BY rootpage", -1, &list, NULL) != SQLITE_OK) die("list");
    while (sqlite3_step(list) == SQLITE_ROW && count < 256) tables[count++] = strdup((const char *)sqlite3_column_text(list, 0));
    sqlite3_finalize(list);

    double seconds = 0;
    long rows = 0;
    run("BEGIN IMMEDIATE");
    char *indexes[1024];
    int index_count = 0;
    double start = now(), cpu_start = cpu_now();
    if (indexes_after) {
        sqlite3_stmt *s;
        if (sqlite3_prepare_v2(db, "SELECT name, tbl_name, sql FROM main.sqlite_master WHERE type = 'index' "
                                   "AND sql IS NOT NULL ORDER BY rowid", -1, &s, NULL) != SQLITE_OK) die("indexes");
        char *drops[1024];
        while (sqlite3_step(s) == SQLITE_ROW && index_count < 1024) {
            if (!is_empty((const char *)sqlite3_column_text(s, 1))) continue;
            char drop[4096] = "DROP INDEX main.";
            quoted(drop, sizeof drop, (const char *)sqlite3_column_text(s, 0));
            drops[index_count] = strdup(drop);
            indexes[index_count++] = strdup((const char *)sqlite3_column_text(s, 2));
        }
        sqlite3_finalize(s); /* a schema change needs no statement reading sqlite_master */
        for (int i = 0; i < index_count; i++) run(drops[i]);
    }
    seconds += now() - start;
    cpu += cpu_now() - cpu_start;
    for (int t = 0; t < count; t++) {
        if (is_empty(tables[t])) rows += copy_table(tables[t], &seconds);
    }
    start = now();
    cpu_start = cpu_now();
    for (int i = 0; i < index_count; i++) run(indexes[i]);
    if (fk_off) {
        sqlite3_stmt *s;
        if (sqlite3_prepare_v2(db, "PRAGMA main.foreign_key_check", -1, &s, NULL) != SQLITE_OK) die("foreign_key_check");
        if (sqlite3_step(s) == SQLITE_ROW) { fprintf(stderr, "seed_floor: a foreign key is broken\n"); return 1; }
        sqlite3_finalize(s);
    }
    run("COMMIT");
    seconds += now() - start;
    cpu += cpu_now() - cpu_start;
    printf("%ld %.4f %.4f\n", rows, seconds, cpu);
    sqlite3_close(db);
    return 0;
}
