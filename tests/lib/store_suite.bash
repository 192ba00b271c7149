# shellcheck shell=bash
# store_suite.bash: the file hooks of a store suite (a line "# stores:
# sqlite postgres" near its top: tests/run.sh runs it once per store) that
# needs nothing else once per file. Load it after common:
#     load '../../lib/common'
#     load '../../lib/store_suite'
# With KVTEST_STORE=postgres, setup_file starts the suite's private
# PostgreSQL server and teardown_file stops it (store_setup_file and
# store_teardown_file, common.bash). A suite with more to do once per file
# (a cluster, a shared database) defines its own hooks and calls those two.

setup_file() {
    store_setup_file
}

teardown_file() {
    store_teardown_file
}
