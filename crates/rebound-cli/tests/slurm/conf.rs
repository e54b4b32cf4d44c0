//! The cluster's files: munge's key (mode 0400) and socket directory, and a `slurm.conf` for one
//! node on 127.0.0.1 with everything it writes (state, spool, pid files, logs) in the temporary
//! directory, on two free ports. The node's CPUs and memory are what `slurmd -C` finds (a node
//! configured with more than it has is drained).

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `PATH` with /usr/sbin and /sbin (where Debian puts the daemons and `slurmd -C`).
pub fn path_with_sbin() -> String {
    format!("{}:/usr/sbin:/sbin", std::env::var("PATH").unwrap_or_default())
}

/// A port nothing listens on now (bind port 0 on loopback, read it, let it go).
fn free_port() -> Result<u16, String> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| format!("no free port: {e}"))?;
    Ok(l.local_addr().map_err(|e| e.to_string())?.port())
}

/// `KEY=value` from `slurmd -C`'s line.
fn hardware(key: &str) -> Result<u64, String> {
    let out = Command::new("slurmd")
        .arg("-C")
        .env("PATH", path_with_sbin())
        .output()
        .map_err(|e| format!("slurmd is not installed (Debian package slurm-wlm): {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace()
        .find_map(|w| w.strip_prefix(&format!("{key}=")))
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("`slurmd -C` printed no {key}=: {text}"))
}

/// Writes the directories, munge's key and `slurm.conf` under `dir`; the config's path.
///
/// # Errors
/// Not root (slurmd launches jobs as their users, and munged's key must be owned by the user it
/// runs as), slurmd missing, or a file that cannot be written.
pub fn write(dir: &Path) -> Result<PathBuf, String> {
    let uid = std::fs::metadata("/proc/self").map(|m| std::os::unix::fs::MetadataExt::uid(&m));
    if uid.map_err(|e| e.to_string())? != 0 {
        return Err("a one-node Slurm needs root (slurmd starts jobs as their users)".into());
    }
    let (cpus, memory) = (hardware("CPUs")?, hardware("RealMemory")?);
    let io = |e: std::io::Error| format!("{}: {e}", dir.display());
    for (sub, mode) in [("", 0o755), ("run", 0o755), ("munge", 0o700), ("state", 0o755), ("spool", 0o755)] {
        let d = dir.join(sub);
        std::fs::create_dir_all(&d).map_err(io)?;
        // munged refuses a socket directory that not everyone can traverse, and a key others read.
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(mode)).map_err(io)?;
    }
    let mut key = [0u8; 1024];
    std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut key)).map_err(io)?;
    let key_path = dir.join("munge/munge.key");
    std::fs::write(&key_path, key).map_err(io)?;
    std::fs::set_permissions(&key_path, std::fs::Permissions::from_mode(0o400)).map_err(io)?;
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").map_err(io)?.trim().to_string();
    let d = dir.display();
    let (ctld_port, slurmd_port) = (free_port()?, free_port()?);
    let conf = format!(
        "ClusterName=rebound-test
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={d}/run/munge.sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/run/slurmctld.pid
SlurmdPidFile={d}/run/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MailProg=/bin/true
NodeName=localhost NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={memory} State=UNKNOWN
PartitionName=rebound Nodes=localhost Default=YES MaxTime=INFINITE State=UP
"
    );
    let path = dir.join("slurm.conf");
    std::fs::write(&path, conf).map_err(io)?;
    Ok(path)
}
