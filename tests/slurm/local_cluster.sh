#!/usr/bin/env bash
# A private two-node Slurm cluster on localhost for tests: its own munged (own key and socket),
# one slurmctld and two slurmd (nodes n1 and n2, distinct ports), all state under $1, nothing
# of the machine's /etc/slurm or /etc/munge used. Needs root (slurmd runs jobs as their user).
#   source tests/slurm/local_cluster.sh; cluster_start DIR; ...; cluster_stop DIR
# cluster_start exports SLURM_CONF so sbatch, squeue and scontrol talk to this cluster.

cluster_start() {
  local dir="$1" port_base
  for tool in munged mungekey slurmctld slurmd sbatch scontrol; do
    command -v "$tool" > /dev/null || {
      echo "local_cluster: $tool missing (scripts/install-deps.sh installs slurmctld, slurmd," \
        "slurm-client and munge)" >&2
      return 1
    }
  done
  [ "$(id -u)" = 0 ] || { echo "local_cluster: needs root (slurmd)" >&2; return 1; }
  mkdir -p "$dir"/{munge,state,spool-n1,spool-n2,log}
  chmod 700 "$dir/munge"
  mungekey --create --keyfile "$dir/munge/key" --force > /dev/null
  chmod 400 "$dir/munge/key"
  munged --force --key-file "$dir/munge/key" --socket "$dir/munge/socket" \
    --pid-file "$dir/munge/pid" --log-file "$dir/log/munged.log" --seed-file "$dir/munge/seed"
  # Ports from the test's PID so that runs side by side do not collide.
  port_base=$((20000 + ($$ % 2000) * 4))
  local cpus
  cpus=$(nproc)
  cat > "$dir/slurm.conf" << CONF
ClusterName=lidartwin-test
SlurmctldHost=localhost
SlurmctldPort=$port_base
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool-%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1,bf_interval=1
JobRequeue=1
ReturnToService=2
SlurmdTimeout=30
InactiveLimit=0
KillWait=1
MinJobAge=600
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
NodeName=n1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((port_base + 1)) CPUs=$cpus State=UNKNOWN
NodeName=n2 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((port_base + 2)) CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
CONF
  export SLURM_CONF="$dir/slurm.conf"
  slurmctld -i -f "$SLURM_CONF"
  slurmd -N n1 -f "$SLURM_CONF"
  slurmd -N n2 -f "$SLURM_CONF"
  local i
  for i in $(seq 1 60); do
    if sinfo -h -N -o '%N %T' 2> /dev/null | grep -qE '^n2 idle' &&
      sinfo -h -N -o '%N %T' 2> /dev/null | grep -qE '^n1 idle'; then
      return 0
    fi
    sleep 0.5
  done
  echo "local_cluster: nodes did not come up; logs:" >&2
  tail -n 20 "$dir"/log/*.log >&2
  return 1
}

cluster_stop() {
  local dir="$1" f
  # Jobs first: a test that failed early must not leave tasks writing into its removed folder.
  if [ -n "${SLURM_CONF:-}" ]; then
    scancel --full --signal=KILL --user "$(id -un)" 2> /dev/null || true
    sleep 0.5
  fi
  for f in "$dir"/slurmd-n1.pid "$dir"/slurmd-n2.pid "$dir"/slurmctld.pid "$dir"/munge/pid; do
    [ -f "$f" ] && kill "$(cat "$f")" 2> /dev/null || true
  done
  sleep 0.5
  for f in "$dir"/slurmd-n1.pid "$dir"/slurmd-n2.pid "$dir"/slurmctld.pid "$dir"/munge/pid; do
    [ -f "$f" ] && kill -9 "$(cat "$f")" 2> /dev/null || true
  done
  return 0
}
