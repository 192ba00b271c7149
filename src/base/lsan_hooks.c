/* lsan_hooks: what LeakSanitizer is told in the sanitizer build, for every
 * binary that links src/ (kvtest and the unit tests). One file, because
 * each hook may be defined once per program. Empty in other builds. */
#if defined(__SANITIZE_ADDRESS__)
#define KVTEST_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KVTEST_LSAN 1
#endif
#endif

#ifdef KVTEST_LSAN
/* No scan of thread-local storage at exit. GCC 12's scan of the
 * thread-locals of a library opened with dlopen (RocksDB has some; see
 * base/dynlib.h) now and then reads a bogus range and kills the process
 * ("Tracer caught signal 11"; two suites in one make test). Fewer roots
 * can only make it report more leaks, never fewer; the blocks glibc
 * allocates for such thread-locals are in its built-in suppressions.
 * LSAN_OPTIONS overrides this. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
    return "use_tls=0:print_suppressions=0";
}

/* Other libraries' memory that only they can free:
 * - h2o 2.2.5 keeps up to 16 memory-pool chunks per thread in a static
 *   thread-local list nothing outside the library can empty; they are
 *   lost when a loop thread ends. Our own allocations (struct conn, the
 *   loops) stay checked.
 * - libpq's GSSAPI support (libgssapi_krb5, libkrb5support) keeps a krb5
 *   context per thread behind a pthread key, reachable only through
 *   thread-local storage, which is not scanned (above). */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:h2o_mem_alloc_recycle\n"
           "leak:libkrb5support.so\n"
           "leak:libgssapi_krb5.so\n";
}
#else
/* ISO C wants at least one declaration in a file. */
typedef int lsan_hooks_unused;
#endif
