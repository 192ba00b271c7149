/* provenance: which kvtest made a figure, so that a result can be tied to
 * the code behind it and rebuilt: the version, the commit the binary was
 * built from and whether the work tree then differed from it, the build
 * variant with its optimisation and instrumentation flags, the compiler.
 * Make writes what only it knows (commit, tree state, flags) into the
 * variant's generated provenance.h (scripts/dev/provenance.sh); a build
 * without one (a fuzz target, a hand-made compile) says "unknown". */
#ifndef KVTEST_PROVENANCE_H
#define KVTEST_PROVENANCE_H

/* The release's version (CHANGELOG.md); also what make deb packages. */
#define KVTEST_VERSION "1.1.0"

/* The version of the --json output's layout ("schema_version" in every
 * object): raised when a field is removed, renamed or changes its meaning
 * or unit; new fields do not raise it (docs/json.md). */
#define KVTEST_SCHEMA_VERSION 1

struct provenance {
    const char *version;  /* KVTEST_VERSION */
    const char *commit;   /* full hash, or "unknown" outside a git checkout */
    int dirty;            /* 1: tracked or new files differed from commit;
                             0: clean; -1: unknown */
    const char *variant;  /* the Makefile's build variant: rel, asan, core, ... */
    const char *flags;    /* that variant's code-generation flags */
    const char *compiler; /* "gcc 12.2.0", "clang 14.0.6", ... */
};

const struct provenance *provenance_get(void);

#endif
