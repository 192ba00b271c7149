/* provenance: which kvtest made a figure (see provenance.h). */
#include "measure/provenance.h"

/* Written by make for each build variant, found through that variant's
 * own include directory (-I$(OBJ)/VARIANT): KVTEST_GIT_COMMIT,
 * KVTEST_GIT_DIRTY, KVTEST_BUILD_VARIANT, KVTEST_BUILD_FLAGS. */
#if defined(__has_include)
#if __has_include("provenance_build.h")
#include "provenance_build.h"
#endif
#endif

#ifndef KVTEST_GIT_COMMIT
#define KVTEST_GIT_COMMIT "unknown"
#define KVTEST_GIT_DIRTY (-1)
#endif
#ifndef KVTEST_BUILD_VARIANT
#define KVTEST_BUILD_VARIANT "unknown"
#define KVTEST_BUILD_FLAGS "unknown"
#endif

#if defined(__clang__)
#define COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define COMPILER "gcc " __VERSION__
#else
#define COMPILER "unknown"
#endif

const struct provenance *provenance_get(void)
{
    static const struct provenance p = {
        KVTEST_VERSION, KVTEST_GIT_COMMIT, KVTEST_GIT_DIRTY,
        KVTEST_BUILD_VARIANT, KVTEST_BUILD_FLAGS, COMPILER,
    };
    return &p;
}
