/* linkid: see linkid.h. */
#include "shortener/store/linkid.h"

int linkid_valid(const char *id, size_t len)
{
    if (len < 1 || len > LINKS_ID_MAX)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = id[i];
        /* Ranges, not isalnum(): that one follows the locale. */
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
            return 0;
    }
    return 1;
}
