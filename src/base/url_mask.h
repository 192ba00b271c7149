/* url_mask: the one place a secret is taken out of a text before anyone
 * sees it. Every message (cli_usage, cli_fail, cli_warn), the command line
 * results record (cli_cmdline) and every store or cache URL shown in a
 * result goes through it. */
#ifndef KVTEST_BASE_URL_MASK_H
#define KVTEST_BASE_URL_MASK_H

#include <stddef.h>

/* Copies text into out (cap bytes, always terminated when cap > 0) with
 * each password replaced by "***":
 *   - a URL's userinfo "SCHEME://USER:PASSWORD@": the user is kept
 *     ("valkey://:***@h:1", "postgres://u:***@h/db"). The userinfo runs to
 *     the last '@' before the next blank, quote or "://", so a password
 *     holding '@', '/' or ':' is masked whole;
 *   - "password=VALUE" at the start of the text or after '?', '&' or a
 *     blank (a libpq URI's query, a keyword/value connection string),
 *     the key in any case; VALUE runs to '&', a blank, or the end, or
 *     is quoted 'like this' (backslash escapes).
 * Nothing else changes. Returns 1 when something was masked, else 0. */
int url_mask(const char *text, char *out, size_t cap);

#endif
