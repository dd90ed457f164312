//! The compilation cache: executables of aot and c stored under a key computed from
//! everything that decides them, so a second `datalove run --backend c|aot` of an
//! unchanged program starts its executable without compiling (docs/running.md,
//! "The compilation cache").
//!
//! An entry is a directory `<cache>/<key>/` holding `program` (the executable), the
//! riders beside it (links to where they were found, as for any run) and `checksum`
//! (a hash of `program`'s bytes, checked before every use; an entry that fails it is
//! removed and built again). An entry is built in a directory of its own under
//! `<cache>/.tmp-*` and renamed into place, so a reader never sees half an entry and two
//! processes building one program both succeed (the second rename finds the first's
//! entry and uses it). Using an entry touches its `used` file; past the size cap the
//! entries used longest ago go.

use std::hash::Hasher;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::SystemTime;

/// The default size cap: 1 GiB (an executable with its runtime is about 7 MB).
pub const DEFAULT_CAP_BYTES: u64 = 1 << 30;

/// A cache directory and its size cap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cache {
    dir: PathBuf,
    cap_bytes: u64,
}

/// What a look-up found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheEvent {
    /// The entry was there and whole.
    Hit,
    /// No entry: built and stored.
    Miss,
    /// An entry that failed its checksum: removed, built and stored again.
    Rebuilt,
}

impl CacheEvent {
    pub fn name(self) -> &'static str {
        match self {
            CacheEvent::Hit => "hit",
            CacheEvent::Miss => "miss",
            CacheEvent::Rebuilt => "rebuilt",
        }
    }
}

/// What `datalove cache stats` says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheStats {
    pub entries: usize,
    pub bytes: u64,
    pub cap_bytes: u64,
}

/// Whether the environment turns the cache off (`DATALOVE_CACHE=off`, `0`, `no`,
/// `false`).
pub fn disabled_by_env() -> bool {
    std::env::var("DATALOVE_CACHE").is_ok_and(|v| {
        matches!(
            v.to_ascii_lowercase().as_str(),
            "off" | "0" | "no" | "false"
        )
    })
}

impl Cache {
    /// The cache at `dir`, with the default cap.
    pub fn at(dir: impl Into<PathBuf>) -> Cache {
        Cache {
            dir: dir.into(),
            cap_bytes: DEFAULT_CAP_BYTES,
        }
    }

    /// The cache the environment names: `$DATALOVE_CACHE_DIR`, else
    /// `$XDG_CACHE_HOME/datalove`, else `~/.cache/datalove`; its cap
    /// `$DATALOVE_CACHE_SIZE` bytes, else [`DEFAULT_CAP_BYTES`]. `None` when
    /// `DATALOVE_CACHE` turns it off or no directory can be named.
    pub fn from_env() -> Option<Cache> {
        if disabled_by_env() {
            return None;
        }
        let nonempty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let dir = nonempty("DATALOVE_CACHE_DIR")
            .map(PathBuf::from)
            .or_else(|| nonempty("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("datalove")))
            .or_else(|| nonempty("HOME").map(|h| PathBuf::from(h).join(".cache/datalove")))?;
        let cap_bytes = std::env::var("DATALOVE_CACHE_SIZE")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(DEFAULT_CAP_BYTES);
        Some(Cache { dir, cap_bytes })
    }

    /// The same cache with another size cap.
    pub fn with_cap(mut self, cap_bytes: u64) -> Cache {
        self.cap_bytes = cap_bytes;
        self
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The executable stored under `key`, built by `build` (which writes the executable
    /// at the path it is given, and its riders beside it) when there is none or the
    /// one there fails its checksum.
    pub fn fetch_or_build<E>(
        &self,
        key: &str,
        build: impl FnOnce(&Path) -> Result<(), E>,
        io_error: impl Fn(String) -> E,
    ) -> Result<(PathBuf, CacheEvent), E> {
        let entry = self.dir.join(key);
        let mut event = CacheEvent::Miss;
        if entry.is_dir() {
            if entry_is_whole(&entry) {
                let _ = std::fs::write(entry.join("used"), b"");
                return Ok((entry.join("program"), CacheEvent::Hit));
            }
            let _ = std::fs::remove_dir_all(&entry);
            event = CacheEvent::Rebuilt;
        }
        static BUILDS: AtomicUsize = AtomicUsize::new(0);
        let temporary = self.dir.join(format!(
            ".tmp-{}-{}-{key}",
            std::process::id(),
            BUILDS.fetch_add(1, Ordering::Relaxed)
        ));
        let failed = |what: &str, e: std::io::Error| {
            io_error(format!(
                "the compilation cache: {what} {}: {e}",
                temporary.display()
            ))
        };
        std::fs::create_dir_all(&temporary).map_err(|e| failed("cannot create", e))?;
        let program = temporary.join("program");
        let built = build(&program).and_then(|()| {
            let sum = checksum_of(&program).map_err(|e| failed("cannot read", e))?;
            std::fs::write(temporary.join("checksum"), sum)
                .map_err(|e| failed("cannot write", e))?;
            // The rename below keeps the file's identity, so the stamp holds after it.
            if let Some(stamp) = stamp_of(&program) {
                std::fs::write(temporary.join("stamp"), stamp)
                    .map_err(|e| failed("cannot write", e))?;
            }
            std::fs::write(temporary.join("used"), b"").map_err(|e| failed("cannot write", e))
        });
        if let Err(e) = built {
            let _ = std::fs::remove_dir_all(&temporary);
            return Err(e);
        }
        if std::fs::rename(&temporary, &entry).is_err() {
            // Another process stored the same entry first: theirs is used, ours goes.
            let _ = std::fs::remove_dir_all(&temporary);
            if !entry_is_whole(&entry) {
                return Err(io_error(format!(
                    "the compilation cache: cannot store {}",
                    entry.display()
                )));
            }
        }
        self.evict(&entry);
        Ok((entry.join("program"), event))
    }

    /// The entries (name, bytes, last use).
    fn entries(&self) -> Vec<(PathBuf, u64, SystemTime)> {
        let Ok(read) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        read.filter_map(Result::ok)
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .filter(|e| e.path().is_dir())
            .map(|e| {
                let path = e.path();
                let bytes = std::fs::metadata(path.join("program")).map_or(0, |m| m.len());
                let used = std::fs::metadata(path.join("used"))
                    .and_then(|m| m.modified())
                    .unwrap_or(SystemTime::UNIX_EPOCH);
                (path, bytes, used)
            })
            .collect()
    }

    /// Removes the entries used longest ago until the rest fit under the cap; `keep`
    /// (the entry just stored) stays.
    fn evict(&self, keep: &Path) {
        let mut entries = self.entries();
        let mut total: u64 = entries.iter().map(|(_, bytes, _)| bytes).sum();
        if total <= self.cap_bytes {
            return;
        }
        entries.sort_by_key(|(_, _, used)| *used);
        for (path, bytes, _) in entries {
            if total <= self.cap_bytes {
                break;
            }
            if path != keep && std::fs::remove_dir_all(&path).is_ok() {
                total -= bytes;
            }
        }
    }

    /// Where a successful probe of `target`'s C compiler is remembered: a file named by
    /// the target, the compiler's words and the identity of the program file they run,
    /// so another compiler (or the same one changed) is probed again.
    pub fn probe_marker(&self, target: &datalove_toolchain::Target) -> PathBuf {
        let compiler = target.c_compiler();
        let mut key = CacheKey::new();
        key.part("probe")
            .part("with the linker flags it chose")
            .part(target.triple())
            .part(compiler.name());
        match datalove_toolchain::find_program(&compiler.program) {
            Some(program) => key.file(&program),
            None => key.part("not found"),
        };
        self.dir.join(".probes").join(key.finish())
    }

    pub fn stats(&self) -> CacheStats {
        let entries = self.entries();
        CacheStats {
            entries: entries.len(),
            bytes: entries.iter().map(|(_, bytes, _)| bytes).sum(),
            cap_bytes: self.cap_bytes,
        }
    }

    /// Removes every entry (and any half-built one); how many entries there were.
    pub fn clear(&self) -> std::io::Result<usize> {
        let Ok(read) = std::fs::read_dir(&self.dir) else {
            return Ok(0);
        };
        let mut removed = 0;
        for entry in read.filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                std::fs::remove_dir_all(&path)?;
                if !entry.file_name().to_string_lossy().starts_with('.') {
                    removed += 1;
                }
            }
        }
        Ok(removed)
    }
}

/// Writes `marker` (and its directory) holding `text` (a probe's linker flags); a
/// failure only means it is not remembered.
pub(crate) fn remember(marker: &Path, text: &str) {
    if let Some(dir) = marker.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = std::fs::write(marker, text);
}

/// Whether an entry has its executable and the executable its checksum. The bytes are
/// hashed again only when the file is not the one stored: its stamp (length,
/// modification time and inode, [`stamp_of`]) differs from the one recorded beside it,
/// as any truncation, write in place or replacement makes it. Hashing the 7 MB of an
/// executable was most of a cached run's own work (3.4 of its 4.9 million
/// instructions).
///
/// A stamp is trusted only when the executable was last changed before the stamp was
/// written (as git treats a "racily clean" file): file times are kept at the kernel's
/// clock tick, so a change in the tick of the store itself would keep the time. Until
/// then the bytes are hashed, and a use that finds them whole writes the stamp again.
fn entry_is_whole(entry: &Path) -> bool {
    let program = entry.join("program");
    let stamp_file = entry.join("stamp");
    let current = stamp_of(&program);
    let stored = std::fs::read_to_string(&stamp_file).ok();
    if stored.is_some() && stored == current && changed_before(&program, &stamp_file) {
        return true;
    }
    let Ok(expected) = std::fs::read_to_string(entry.join("checksum")) else {
        return false;
    };
    let whole = checksum_of(&program).is_ok_and(|sum| sum == expected);
    if let (true, Some(current)) = (whole, current) {
        let _ = std::fs::write(&stamp_file, current);
    }
    whole
}

/// Whether `file` was last modified strictly before `later` was.
fn changed_before(file: &Path, later: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let time = |p: &Path| {
        std::fs::metadata(p)
            .ok()
            .map(|m| (m.mtime(), m.mtime_nsec()))
    };
    matches!((time(file), time(later)), (Some(a), Some(b)) if a < b)
}

/// What identifies a file's present contents without reading them: its length, its
/// modification time (to the nanosecond) and its inode.
fn stamp_of(path: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok()?;
    Some(format!(
        "{} {}.{:09} {}",
        meta.len(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ino()
    ))
}

/// The checksum of a file: its length and a hash of its bytes, as hex. Four words at a
/// time in four independent lanes, so an executable's 7 MB take well under a
/// millisecond once read.
fn checksum_of(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut lanes = [
        0x243f_6a88_85a3_08d3u64,
        0x1319_8a2e_0370_7344,
        0xa409_3822_299f_31d0,
        0x082e_fa98_ec4e_6c89,
    ];
    let mut buffer = vec![0u8; 1 << 20];
    let mut length: u64 = 0;
    let mut tail = KeyHasher::default();
    loop {
        let n = read_full(&mut file, &mut buffer)?;
        if n == 0 {
            break;
        }
        length += n as u64;
        let mut blocks = buffer[..n].chunks_exact(32);
        for block in &mut blocks {
            for (lane, word) in lanes.iter_mut().zip(block.chunks_exact(8)) {
                let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
                *lane = (lane.rotate_left(29) ^ word).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            }
        }
        // Only the file's last read can leave a part block (`read_full` fills the rest).
        tail.write(blocks.remainder());
    }
    for lane in lanes {
        tail.write(&lane.to_le_bytes());
    }
    Ok(format!("{length}:{:016x}", tail.finish()))
}

/// Reads until `buffer` is full or the file ends; how many bytes it holds.
fn read_full(file: &mut std::fs::File, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match file.read(&mut buffer[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

/// The hash of keys and checksums: words multiplied and rotated (fast over an
/// executable's megabytes; keys are no defence against an adversary who can write
/// the cache directory anyway).
#[derive(Default)]
struct KeyHasher {
    state: u64,
    pending: Vec<u8>,
}

impl KeyHasher {
    fn mix(&mut self, word: u64) {
        self.state = (self.state.rotate_left(23) ^ word)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .wrapping_add(0x632b_e59b_d9b4_e019);
    }
}

impl Hasher for KeyHasher {
    fn write(&mut self, mut bytes: &[u8]) {
        if !self.pending.is_empty() {
            let take = (8 - self.pending.len()).min(bytes.len());
            self.pending.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.pending.len() == 8 {
                let word = u64::from_le_bytes(self.pending[..].try_into().expect("8 bytes"));
                self.pending.clear();
                self.mix(word);
            }
        }
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.mix(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
        }
        self.pending.extend_from_slice(chunks.remainder());
    }

    fn finish(&self) -> u64 {
        let mut tail = [0u8; 8];
        tail[..self.pending.len()].copy_from_slice(&self.pending);
        let mut last = KeyHasher {
            state: self.state,
            pending: Vec::new(),
        };
        last.mix(u64::from_le_bytes(tail) ^ ((self.pending.len() as u64) << 59));
        last.state ^ (last.state >> 29)
    }
}

/// A cache key: every part that decides an executable, hashed twice (two seeds, 128
/// bits) into 32 hex digits. Each part is written with its length, so two parts can
/// never run together into the same bytes.
pub struct CacheKey {
    hashers: [KeyHasher; 2],
}

impl Default for CacheKey {
    fn default() -> CacheKey {
        CacheKey::new()
    }
}

impl CacheKey {
    pub fn new() -> CacheKey {
        let mut key = CacheKey {
            hashers: [KeyHasher::default(), KeyHasher::default()],
        };
        key.hashers[1].mix(0x5bd1_e995_1234_5678);
        key.part("datalove compilation cache 1");
        key.part(env!("CARGO_PKG_VERSION"));
        key
    }

    /// Adds one part.
    pub fn part(&mut self, bytes: impl AsRef<[u8]>) -> &mut CacheKey {
        let bytes = bytes.as_ref();
        for h in &mut self.hashers {
            h.write(&(bytes.len() as u64).to_le_bytes());
            h.write(bytes);
        }
        self
    }

    /// Adds a file's identity: its path, length and modification time (or that it is
    /// missing).
    pub fn file(&mut self, path: &Path) -> &mut CacheKey {
        self.part(path.as_os_str().as_encoded_bytes());
        match std::fs::metadata(path) {
            Ok(m) => {
                let modified = m
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos());
                self.part(format!("{}:{modified}", m.len()))
            }
            Err(_) => self.part("missing"),
        }
    }

    /// The key, as a directory name.
    pub fn finish(&self) -> String {
        format!(
            "{:016x}{:016x}",
            self.hashers[0].finish(),
            self.hashers[1].finish()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("datalove-cache-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn store(cache: &Cache, key: &str, bytes: &[u8]) -> (PathBuf, CacheEvent) {
        cache
            .fetch_or_build(
                key,
                |p| std::fs::write(p, bytes).map_err(|e| e.to_string()),
                |e| e,
            )
            .expect("stored")
    }

    #[test]
    fn keys_differ_by_every_part_and_parts_never_run_together() {
        let key = |parts: &[&str]| {
            let mut k = CacheKey::new();
            for p in parts {
                k.part(p);
            }
            k.finish()
        };
        assert_eq!(key(&["ir", "c"]), key(&["ir", "c"]));
        assert_ne!(key(&["ir", "c"]), key(&["ir", "aot"]));
        assert_ne!(key(&["ab", "c"]), key(&["a", "bc"]));
        assert_eq!(key(&["x"]).len(), 32);
    }

    #[test]
    fn a_second_fetch_hits_and_a_corrupted_entry_is_rebuilt() {
        let cache = Cache::at(scratch("hit"));
        assert_eq!(store(&cache, "k", b"one").1, CacheEvent::Miss);
        let (program, event) = store(&cache, "k", b"never built");
        assert_eq!(event, CacheEvent::Hit);
        assert_eq!(std::fs::read(&program).unwrap(), b"one");
        // Truncated, then changed in place: both fail the checksum.
        std::fs::write(&program, b"on").unwrap();
        assert_eq!(store(&cache, "k", b"two").1, CacheEvent::Rebuilt);
        std::fs::write(&program, b"twp").unwrap();
        assert_eq!(store(&cache, "k", b"three").1, CacheEvent::Rebuilt);
        assert_eq!(std::fs::read(&program).unwrap(), b"three");
        assert_eq!(cache.stats().entries, 1);
        assert_eq!(cache.clear().unwrap(), 1);
        assert_eq!(cache.stats().entries, 0);
    }

    #[test]
    fn a_failed_build_leaves_nothing_behind() {
        let cache = Cache::at(scratch("fail"));
        let result = cache.fetch_or_build("k", |_| Err("no".to_string()), |e| e);
        assert_eq!(result, Err("no".to_string()));
        assert_eq!(std::fs::read_dir(cache.dir()).unwrap().count(), 0);
    }

    #[test]
    fn past_the_cap_the_entries_used_longest_ago_go() {
        let cache = Cache::at(scratch("cap")).with_cap(25);
        for key in ["a", "b"] {
            store(&cache, key, &[0u8; 10]);
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // `a` used again: `b` is now the oldest.
        assert_eq!(store(&cache, "a", b"").1, CacheEvent::Hit);
        std::thread::sleep(std::time::Duration::from_millis(20));
        store(&cache, "c", &[0u8; 10]);
        let mut left: Vec<String> = std::fs::read_dir(cache.dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["a", "c"]);
        assert_eq!(cache.stats().bytes, 20);
    }

    #[test]
    fn two_threads_storing_one_entry_both_succeed() {
        let cache = Cache::at(scratch("race"));
        let results: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        cache.fetch_or_build(
                            "k",
                            |p| {
                                std::thread::sleep(std::time::Duration::from_millis(30));
                                std::fs::write(p, b"same").map_err(|e| e.to_string())
                            },
                            |e| e,
                        )
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for result in results {
            let (program, _) = result.expect("every builder succeeds");
            assert_eq!(std::fs::read(program).unwrap(), b"same");
        }
        assert_eq!(cache.stats().entries, 1);
        let names: Vec<_> = std::fs::read_dir(cache.dir()).unwrap().collect();
        assert_eq!(names.len(), 1, "no half-built entry is left");
    }
}
