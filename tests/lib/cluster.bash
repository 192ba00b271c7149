# shellcheck shell=bash
# cluster.bash: a private Valkey Cluster for the integration tests (load
# '../../lib/cluster' after '../../lib/common'). The helpers live in
# scripts/study/cluster-lib.sh, shared with the cluster study; see there.
# Call stop_cluster from teardown.

# shellcheck source=scripts/study/cluster-lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/study/cluster-lib.sh"
