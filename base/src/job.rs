//! The launcher owns its job: however the launcher (`coco-run`, or a
//! `coco-exec` that started itself under `mpirun`) ends, every process it
//! started ends too, and its temporary folders go.
//!
//! - SIGTERM, SIGINT and SIGHUP are caught once [`guard`] ran. A watcher
//!   thread forwards the signal to every child started with [`spawn`]
//!   (`mpirun`, which takes its ranks down), waits for them (at most
//!   [`GRACE`], then SIGKILL), removes every live [`TempDir`], and ends the
//!   process by the same signal, so that the caller sees the usual status.
//!   The compiler may be busy in MLIR when the signal comes: nothing waits
//!   for it.
//! - SIGKILL cannot be caught. The children get `PR_SET_PDEATHSIG`
//!   (SIGTERM when the launcher is gone), and ranks watch both their parent
//!   and the launcher ([`watch_launcher`], started by MPI initialisation)
//!   and exit when either is gone. A detached reaper removes the
//!   launcher's temporary folders once it is gone; failing that, the next
//!   [`TempDir::new`] removes those whose owner file's lock nobody holds
//!   (never a folder without one). Open MPI's session folder and
//!   shared-memory segments live in such folders too
//!   (`coco_runtime::launch::MpiFolders`).
//! - A stopped process (SIGSTOP) cannot act either. A rank waiting for it
//!   fails by the watchdog (`coco_runtime::watchdog`), which names the step; where
//!   no rank waits (mpirun stopped, a one-rank job, a stop outside a
//!   collective), the launcher watches its job's processes and kills one
//!   that stays stopped for twice the watchdog's limit, which ends the job.
//!
//! Linux-only parts (`prctl`) are compiled out elsewhere; the rest is POSIX.

use std::{
    ffi::c_int,
    io,
    path::{Path, PathBuf},
    process::{Child, Command, ExitStatus, Output},
    sync::{
        atomic::{AtomicI32, AtomicU64, AtomicUsize, Ordering},
        Mutex, Once, OnceLock,
    },
    thread,
    time::{Duration, Instant},
};

/// The pid of the launcher, in the environment of the processes it starts
/// (and so of the ranks), which exit when it is gone.
pub const LAUNCHER_PID_ENV: &str = "COCO_LAUNCHER_PID";

/// How long children get to end after a forwarded signal before SIGKILL.
pub const GRACE: Duration = Duration::from_secs(10);

/// How often a rank checks that its parent and launcher are alive.
const POLL: Duration = Duration::from_millis(250);

/// The signals a launcher forwards to its job.
const SIGNALS: [c_int; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];

/// Of [`SIGNALS`], those caught even when the process starts with them
/// ignored. A shell runs a script's background commands with SIGINT
/// ignored, but mpirun installs its own handler, so Ctrl-C to the script's
/// process group ended the ranks anyway while the launcher, ignoring it,
/// reported a failed job (exit 1) instead of the signal (130). SIGHUP
/// ignored is `nohup`'s request, which holds while compiling.
const ALWAYS_CAUGHT: [c_int; 2] = [libc::SIGTERM, libc::SIGINT];

/// Write end of the pipe the signal handler writes the signal number to.
static PIPE: AtomicI32 = AtomicI32::new(-1);
/// The signal being handled (0: none).
static INTERRUPTED: AtomicI32 = AtomicI32::new(0);
/// Children started by [`spawn`] and not yet waited for.
static CHILDREN: Mutex<Vec<u32>> = Mutex::new(Vec::new());
/// Folders to remove on a signal: every live [`TempDir`].
static TEMP_DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static PROGRAM: OnceLock<String> = OnceLock::new();
/// Half the time a process of a job may stay stopped before it is killed:
/// the executor's watchdog limit (`coco_runtime::watchdog`, which sets it);
/// 0, as for a Spark job, never kills a stopped process.
static STOP_LIMIT_S: AtomicU64 = AtomicU64::new(0);

/// Sets the limit [`spawn`]'s watcher kills a stopped process of the job
/// after (twice `seconds`; 0: never).
pub fn set_stop_limit(seconds: u64) {
    STOP_LIMIT_S.store(seconds, Ordering::Relaxed);
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

extern "C" fn on_signal(signal: c_int) {
    let fd = PIPE.load(Ordering::Relaxed);
    if fd >= 0 {
        let byte = signal as u8;
        // SAFETY: write(2) is async-signal-safe; the byte outlives the call.
        unsafe { libc::write(fd, (&byte as *const u8).cast(), 1) };
    }
}

/// Makes this process the owner of its job: from now on SIGTERM, SIGINT
/// and SIGHUP end the children started with [`spawn`], remove every
/// [`TempDir`], and end the process by the signal (after one line on
/// stderr, prefixed with `program`). SIGHUP, if the process was started
/// with it ignored (`nohup`), stays ignored ([`ALWAYS_CAUGHT`]).
/// Idempotent.
pub fn guard(program: &str) {
    static ONCE: Once = Once::new();
    let _ = PROGRAM.set(program.to_string());
    ONCE.call_once(|| {
        let mut fds = [0 as c_int; 2];
        // SAFETY: `fds` has room for the two descriptors.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return; // no handlers: signals keep their default action
        }
        let reader = fds[0];
        if thread::Builder::new()
            .name("coco-signals".into())
            .spawn(move || watch_signals(reader))
            .is_err()
        {
            return;
        }
        PIPE.store(fds[1], Ordering::SeqCst);
        for signal in SIGNALS {
            // SAFETY: zeroed sigaction structs are valid; the handler only
            // calls write(2).
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                libc::sigaction(signal, std::ptr::null(), &mut old);
                if old.sa_sigaction == libc::SIG_IGN && !ALWAYS_CAUGHT.contains(&signal) {
                    continue;
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as extern "C" fn(c_int) as usize;
                action.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        }
    });
}

/// The signal this process is ending by, if any.
pub fn interrupted() -> Option<i32> {
    match INTERRUPTED.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

fn signal_name(signal: c_int) -> String {
    match signal {
        libc::SIGTERM => "SIGTERM".into(),
        libc::SIGINT => "SIGINT".into(),
        libc::SIGHUP => "SIGHUP".into(),
        other => format!("signal {other}"),
    }
}

fn watch_signals(reader: c_int) {
    let mut byte = 0u8;
    loop {
        // SAFETY: reading one byte into `byte`.
        let n = unsafe { libc::read(reader, (&mut byte as *mut u8).cast(), 1) };
        if n == 1 {
            break;
        }
        if n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
            continue;
        }
        return;
    }
    let signal = c_int::from(byte);
    INTERRUPTED.store(signal, Ordering::SeqCst);
    // Holding the lock: a child being spawned now is registered first, or
    // starts after this and dies with us (PR_SET_PDEATHSIG).
    let children = lock(&CHILDREN);
    for &pid in children.iter() {
        // SAFETY: kill(2) on a child not yet reaped (its pid is ours).
        unsafe { libc::kill(pid as libc::pid_t, signal) };
    }
    let deadline = Instant::now() + GRACE;
    for &pid in children.iter() {
        while !exited(pid) {
            if Instant::now() >= deadline {
                // SAFETY: as above; the child has not exited, so its pid is
                // still its own.
                unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
                break;
            }
            thread::sleep(Duration::from_millis(20));
        }
    }
    let ended_job = !children.is_empty();
    for dir in lock(&TEMP_DIRS).iter() {
        remove_dir(dir);
    }
    let program = PROGRAM.get().map_or("coco", String::as_str);
    let line = format!(
        "{program}: error: stopped by {}{}\n",
        signal_name(signal),
        if ended_job { "; the job was ended" } else { "" }
    );
    let _ = io::Write::write_all(&mut io::stderr().lock(), line.as_bytes());
    // SAFETY: restoring the default action and raising the signal ends the
    // process as the signal would have; _exit is the fallback.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, signal);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(signal);
        libc::_exit(128 + signal)
    }
}

/// Whether child `pid` has exited (without reaping it: its waiter does).
fn exited(pid: u32) -> bool {
    // SAFETY: a zeroed siginfo_t is a valid out-parameter.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: waitid(2) with WNOWAIT leaves the child waitable.
    let rc = unsafe {
        libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        )
    };
    // ECHILD: already reaped by its waiter.
    // SAFETY: si_pid is set by a successful waitid.
    rc != 0 || unsafe { info.si_pid() } != 0
}

/// Removes `dir`, retrying while another thread may still be writing in it.
fn remove_dir(dir: &Path) {
    for _ in 0..5 {
        match std::fs::remove_dir_all(dir) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                thread::sleep(Duration::from_millis(10))
            }
            _ => return,
        }
    }
}

/// Starts `command` as a child this process owns: it gets the signals
/// [`guard`] catches, SIGTERM when this process dies (even by SIGKILL), and
/// [`LAUNCHER_PID_ENV`] (for the ranks to watch). The calling thread must
/// wait for the child ([`wait`]): on Linux the death signal comes when the
/// thread that started the child ends.
pub fn spawn(command: &mut Command) -> io::Result<Child> {
    let launcher = std::process::id();
    command.env(LAUNCHER_PID_ENV, launcher.to_string());
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: prctl, getppid and raise are async-signal-safe.
        unsafe {
            command.pre_exec(move || {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
                // The launcher died before the death signal was set.
                if libc::getppid() as u32 != launcher {
                    libc::raise(libc::SIGTERM);
                }
                Ok(())
            });
        }
    }
    spawn_reaper(&lock(&TEMP_DIRS));
    let mut children = lock(&CHILDREN);
    let child = command.spawn()?;
    children.push(child.id());
    let pid = child.id();
    let _ = thread::Builder::new()
        .name("coco-job-watch".into())
        .spawn(move || watch_job(pid));
    Ok(child)
}

/// A SIGKILLed launcher cannot remove its temporary folders, and its ranks
/// are killed by mpirun before they could: a detached `sh` outlives it,
/// waits for it to be gone, and removes every folder it named
/// `PREFIX-PID-TOKEN-*` (all of them this process's, whichever job made
/// them: the token is this process's alone).
/// One per process and prefix; folders created while compiling the first
/// job, before it starts, are left to the next run's stale-folder sweep.
fn spawn_reaper(dirs: &[PathBuf]) {
    use std::os::unix::process::CommandExt;
    static WATCHED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    let pid = std::process::id();
    let marker = format!("-{pid}-{}-", process_token());
    for dir in dirs {
        let (Some(parent), Some(name)) = (dir.parent(), dir.file_name().and_then(|n| n.to_str()))
        else {
            continue;
        };
        let Some(at) = name.find(&marker) else {
            continue;
        };
        let pattern = parent.join(format!("{}{marker}", &name[..at]));
        let mut watched = lock(&WATCHED);
        if watched.contains(&pattern) {
            continue;
        }
        watched.push(pattern.clone());
        let mut reaper = Command::new("/bin/sh");
        reaper
            .arg("-c")
            // Twice: a rank that was starting when the launcher died may
            // recreate Open MPI's session folders in the moment before it
            // ends.
            .arg(
                "while kill -0 \"$0\" 2>/dev/null; do sleep 0.2; done; rm -rf -- \"$1\"*; \
                 sleep 2; rm -rf -- \"$1\"*",
            )
            .arg(pid.to_string())
            .arg(&pattern)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            // Its own group: a signal to the launcher's group does not end it.
            .process_group(0);
        // Waited for by a thread, so that it is never left a zombie.
        if let Ok(mut child) = reaper.spawn() {
            let _ = thread::Builder::new()
                .name("coco-reaper-wait".into())
                .spawn(move || child.wait());
        }
    }
}

/// How long a launcher may outlive every rank it started. Open MPI's
/// mpirun sometimes stays asleep after its ranks have exited (a rank that
/// fails as the job starts, both ranks zombies it never reaps): the job is
/// over, and only the launcher keeps the caller waiting, forever.
const LAUNCHER_GRACE: Duration = if cfg!(test) {
    Duration::from_secs(1)
} else {
    Duration::from_secs(20)
};

/// Until child `pid` is reaped: kills any process of its job (the child
/// and its children: mpirun and the ranks) that stays stopped for twice
/// the watchdog's limit, and the child when every rank it started has
/// exited (a zombie it does not reap) for [`LAUNCHER_GRACE`]. Samples are
/// counted, not time: when the launcher itself is stopped with its job
/// (Ctrl-Z), it does not count.
fn watch_job(pid: u32) {
    let limit = STOP_LIMIT_S.load(Ordering::Relaxed);
    let samples = (2 * limit).saturating_mul(1000) / POLL.as_millis() as u64;
    let grace = (LAUNCHER_GRACE.as_millis() / POLL.as_millis()) as u64;
    let mut stopped: Vec<(u32, u64)> = Vec::new();
    let mut orphaned = 0u64;
    while lock(&CHILDREN).contains(&pid) && interrupted().is_none() {
        let ranks = proc_children(pid);
        let mut job = vec![pid];
        job.extend(&ranks);
        stopped.retain(|(p, _)| job.contains(p));
        for &p in &job {
            let is_stopped = proc_state(p) == Some('T');
            let at = stopped.iter().position(|(q, _)| *q == p);
            match (is_stopped, at) {
                (true, Some(i)) => stopped[i].1 += 1,
                (true, None) => stopped.push((p, 1)),
                (false, Some(i)) => {
                    stopped.remove(i);
                }
                (false, None) => {}
            }
        }
        let all_exited = !ranks.is_empty()
            && proc_state(pid) != Some('T')
            && ranks.iter().all(|&r| proc_state(r) == Some('Z'));
        orphaned = if all_exited { orphaned + 1 } else { 0 };
        let program = PROGRAM.get().map_or("coco", String::as_str);
        if orphaned >= grace {
            let line = format!(
                "{program}: error: every rank has exited, but mpirun (pid {pid}) has not ended \
                 the job after {} s; ending it\n",
                LAUNCHER_GRACE.as_secs()
            );
            let _ = io::Write::write_all(&mut io::stderr().lock(), line.as_bytes());
            // SAFETY: kill(2) on our own child, not yet reaped.
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
            return;
        }
        if limit == 0 {
            stopped.clear();
        }
        if let Some(&(victim, _)) = stopped.iter().find(|(_, n)| *n >= samples) {
            let what = if victim == pid { "mpirun" } else { "a rank" };
            let line = format!(
                "{program}: error: {what} (pid {victim}) has been stopped for {} s; ending the \
                 job (twice the watchdog's limit, --watchdog-s or COCO_WATCHDOG_S)\n",
                2 * limit,
            );
            let _ = io::Write::write_all(&mut io::stderr().lock(), line.as_bytes());
            // SAFETY: kill(2); a stopped process ends only by SIGKILL.
            // Then mpirun sees a rank die and ends the job, or the ranks
            // see mpirun gone.
            unsafe { libc::kill(victim as libc::pid_t, libc::SIGKILL) };
            return;
        }
        thread::sleep(POLL);
    }
}

/// A process's state letter from `/proc` (`T`: stopped), if it exists.
fn proc_state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `PID (COMMAND) STATE ...`; the command may hold spaces and parentheses.
    stat[stat.rfind(')')? + 1..].trim_start().chars().next()
}

/// The children of `pid` (of all its threads), from `/proc`.
fn proc_children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|text| {
            text.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

/// After a child started with [`spawn`] was reaped: forget it, and if a
/// signal is being handled, leave the rest to the watcher (which ends the
/// process) rather than report the job's death as a failure of its own.
fn reaped(pid: u32) {
    lock(&CHILDREN).retain(|&p| p != pid);
    if interrupted().is_some() {
        loop {
            thread::park();
        }
    }
}

/// Waits for a child started with [`spawn`].
pub fn wait(mut child: Child) -> io::Result<ExitStatus> {
    let pid = child.id();
    let status = child.wait();
    reaped(pid);
    status
}

/// Waits for a child started with [`spawn`] with piped output, collecting it.
pub fn wait_with_output(child: Child) -> io::Result<Output> {
    let pid = child.id();
    let output = child.wait_with_output();
    reaped(pid);
    output
}

/// The file in every [`TempDir`] that marks it as coco's: its owner holds
/// the lock (`flock`) on it for as long as the folder is in use.
pub const OWNER_FILE: &str = ".coco-owner";

/// How an [`OWNER_FILE`] begins.
const OWNER_TEXT: &str = "coco temporary folder\n";

/// A token unique to this process, in its folders' names: `PREFIX-PID-`
/// alone may name a user's folder (`coco-run-999999-thesis`), or another
/// PID namespace's job with the same pid.
fn process_token() -> &'static str {
    static TOKEN: OnceLock<String> = OnceLock::new();
    TOKEN.get_or_init(|| crate::staged::token()[..8].to_string())
}

/// A folder `PREFIX-PID-TOKEN-N-WHAT` under the temporary directory
/// (`$TMPDIR`) or another root ([`TempDir::new_in`]), removed on drop and
/// on the signals [`guard`] catches. It holds [`OWNER_FILE`], locked while
/// the folder lives, so that if this process is SIGKILLed the next
/// `TempDir` of the same prefix in the same root (any process's, in any
/// PID namespace) can tell that its owner is gone and remove it; a folder
/// without that file, or whose lock is held, is never removed.
pub struct TempDir {
    path: PathBuf,
    // Closed after the folder is removed: until then, its owner is alive.
    _owner: std::fs::File,
}

impl TempDir {
    pub fn new(prefix: &str, what: &str) -> io::Result<TempDir> {
        TempDir::new_in(&std::env::temp_dir(), prefix, what)
    }

    /// A folder under `root` (created if needed).
    pub fn new_in(root: &Path, prefix: &str, what: &str) -> io::Result<TempDir> {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        std::fs::create_dir_all(root)?;
        remove_stale(root, prefix);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = root.join(format!(
            "{prefix}-{}-{}-{n}-{what}",
            std::process::id(),
            process_token()
        ));
        // Registered first, so that a signal during creation removes it.
        lock(&TEMP_DIRS).push(path.clone());
        let owner = create_owned(&path);
        match owner {
            Ok(owner) => Ok(TempDir {
                path,
                _owner: owner,
            }),
            Err(e) => {
                remove_dir(&path);
                lock(&TEMP_DIRS).retain(|p| p != &path);
                Err(e)
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Creates folder `path` (new) with its [`OWNER_FILE`], locked.
fn create_owned(path: &Path) -> io::Result<std::fs::File> {
    use std::io::Write;
    std::fs::create_dir(path)?;
    let marker = path.join(OWNER_FILE);
    let mut owner = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&marker)?;
    // Locked before it says what it is: a sweep that takes the lock first
    // finds it empty, and leaves the folder. Where the file system has no
    // locks, a sweep cannot take one either, and leaves every folder.
    let _ = crate::file::lock(&owner);
    let namespace = std::fs::read_link("/proc/self/ns/pid")
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    writeln!(
        owner,
        "{OWNER_TEXT}pid {} ({namespace}); removed once no process holds the lock on this file",
        std::process::id()
    )?;
    Ok(owner)
}

impl Drop for TempDir {
    fn drop(&mut self) {
        remove_dir(&self.path);
        lock(&TEMP_DIRS).retain(|p| p != &self.path);
    }
}

/// Whether process `pid` exists (in this pid namespace).
pub fn alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists.
    let exists = unsafe { libc::kill(pid, 0) } == 0;
    exists || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Removes this user's `PREFIX-*` folders under `root` whose owner is
/// provably gone: each holds an [`OWNER_FILE`] that says it is coco's and
/// whose lock nobody holds (a launcher killed by SIGKILL). A pid says
/// nothing across PID namespaces (a container sharing `$TMPDIR`), and a
/// name says nothing about who made the folder, so neither is trusted.
fn remove_stale(root: &Path, prefix: &str) {
    use std::{io::Read, os::unix::fs::MetadataExt};
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    // SAFETY: getuid cannot fail.
    let uid = unsafe { libc::getuid() };
    let start = format!("{prefix}-");
    for entry in entries.flatten() {
        if !entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(&start))
        {
            continue;
        }
        let path = entry.path();
        // Not a link: the folder itself, this user's.
        let ours = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir() && m.uid() == uid);
        if !ours {
            continue;
        }
        let Ok(mut owner) = crate::file::open_for_lock(&path.join(OWNER_FILE)) else {
            continue;
        };
        if !crate::file::try_lock(&owner).unwrap_or(false) {
            continue; // its owner is alive
        }
        let mut text = [0u8; OWNER_TEXT.len()];
        if owner.read_exact(&mut text).is_ok() && text == OWNER_TEXT.as_bytes() {
            remove_dir(&path);
        }
    }
}

/// In a rank: exits (status 1, one line on stderr) once the process that
/// started it, or the launcher named by [`LAUNCHER_PID_ENV`], is gone, so
/// that no rank outlives a killed `mpirun` or launcher (a rank waiting in a
/// collective would otherwise spin forever). Idempotent.
pub fn watch_launcher() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: getppid cannot fail.
        let parent = unsafe { libc::getppid() };
        let launcher = std::env::var(LAUNCHER_PID_ENV)
            .ok()
            .and_then(|p| p.parse::<u32>().ok());
        let _ = thread::Builder::new()
            .name("coco-launcher-watch".into())
            .spawn(move || loop {
                // SAFETY: getppid cannot fail.
                // Not `parent == 1`: mpirun may be a container's init.
                let orphaned = unsafe { libc::getppid() } != parent;
                let gone = if orphaned {
                    Some("the process that started it (mpirun)")
                } else if launcher.is_some_and(|pid| !alive(pid)) {
                    Some("its launcher")
                } else {
                    None
                };
                if let Some(what) = gone {
                    let program = std::env::args()
                        .next()
                        .and_then(|a| Path::new(&a).file_name()?.to_str().map(String::from))
                        .unwrap_or_else(|| "coco-exec".into());
                    let line = format!("{program}: error: stopping: {what} is gone\n");
                    let _ = io::Write::write_all(&mut io::stderr().lock(), line.as_bytes());
                    // SAFETY: ends the process without running MPI's or
                    // anyone's exit handlers (the main thread may be inside
                    // MPI).
                    unsafe { libc::_exit(1) };
                }
                thread::sleep(POLL);
            });
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder as a `TempDir` of a process that is gone leaves it: its
    /// owner file, unlocked.
    fn dead_folder(root: &Path, name: &str) -> PathBuf {
        let dir = root.join(name);
        drop(create_owned(&dir).unwrap());
        dir
    }

    #[test]
    fn only_folders_whose_owner_is_gone_are_removed() {
        let root = std::env::temp_dir().join(format!("coco-job-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        // Killed jobs: coco's owner file, unlocked.
        let dead = dead_folder(&root, "coco-x-4194305-0123abcd-0-bundle");
        let dead_here = dead_folder(
            &root,
            &format!("coco-x-{}-0123abcd-1-inputs", std::process::id()),
        );
        // A user's folder with a coco-like name, and one with a file of the
        // owner file's name that is not coco's: never removed.
        let thesis = root.join("coco-x-999999-thesis");
        std::fs::create_dir_all(&thesis).unwrap();
        std::fs::write(thesis.join("chapter1.tex"), "...").unwrap();
        let lookalike = root.join("coco-x-4194305-lookalike");
        std::fs::create_dir_all(&lookalike).unwrap();
        std::fs::write(lookalike.join(OWNER_FILE), "mine").unwrap();
        // A live job whose pid means nothing here (another PID namespace,
        // pid 4194306 above any pid_max): its owner holds the lock.
        let other_namespace = dead_folder(&root, "coco-x-4194306-89abcdef-0-inputs");
        let holder = crate::file::open_for_lock(&other_namespace.join(OWNER_FILE)).unwrap();
        crate::file::lock(&holder).unwrap();
        // Another prefix's folder, and this process's own live one.
        let other = dead_folder(&root, "coco-y-4194305-0123abcd-0-bundle");
        let live = TempDir::new_in(&root, "coco-x", "outputs").unwrap();

        remove_stale(&root, "coco-x");
        assert!(!dead.exists());
        assert!(!dead_here.exists());
        assert!(thesis.join("chapter1.tex").exists());
        assert!(lookalike.exists());
        assert!(other_namespace.exists());
        assert!(other.exists());
        assert!(live.path().exists());
        // Once its owner is gone, the other namespace's job goes too.
        drop(holder);
        remove_stale(&root, "coco-x");
        assert!(!other_namespace.exists());
        assert!(live.path().exists());
        drop(live);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_launcher_that_outlives_its_ranks_is_ended() {
        use std::os::unix::process::ExitStatusExt;
        // `sleep 0` exits at once and the `sleep` exec'd in its parent's
        // place never reaps it: a launcher asleep beside its exited ranks.
        let child =
            spawn(Command::new("/bin/sh").args(["-c", "sleep 0 & exec sleep 600"])).unwrap();
        let status = wait(child).unwrap();
        assert_eq!(status.signal(), Some(libc::SIGKILL));
    }

    #[test]
    fn temp_dirs_are_removed_on_drop() {
        let dir = TempDir::new("coco-job-unit", "t").unwrap();
        let path = dir.path().to_path_buf();
        assert!(path.is_dir());
        drop(dir);
        assert!(!path.exists());
        assert!(!lock(&TEMP_DIRS).contains(&path));
    }
}
