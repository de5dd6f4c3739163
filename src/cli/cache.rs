//! `trident cache dir|list|clear`: where the on-disk cache is, what is in it, and emptying it.
//!
//! `list` prints one row per entry (kind, kernel, backend, target or device, size, age, status),
//! marking entries of another trident build (never loaded by this one: their keys differ) and
//! damaged ones; `clear` removes every entry, one line per file, then a total. Neither fails
//! when the directory does not exist: the cache is then empty.

use std::path::Path;
use std::time::Duration;

use trident_runtime::cache::directory::{self, Listed};
use trident_runtime::cache::keys;

use super::error::CliError;
use super::CacheAction;

pub fn cache(action: &CacheAction) -> Result<(), CliError> {
    let dir = directory::location().map_err(CliError::Failed)?;
    match action {
        CacheAction::Dir => println!("{}", dir.display()),
        CacheAction::List => list(&dir),
        CacheAction::Clear => clear(&dir)?,
    }
    Ok(())
}

fn list(dir: &Path) {
    let entries = directory::list(dir);
    if entries.is_empty() {
        println!("cache: {} holds no entries", dir.display());
        return;
    }
    let identity = keys::identity();
    let header = ["kind", "kernel", "backend", "target", "size", "age", "status"].map(String::from);
    let rows: Vec<[String; 7]> = entries.iter().map(|entry| row(entry, &identity)).collect();
    let mut widths = [0usize; 7];
    for row in std::iter::once(&header).chain(&rows) {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.len());
        }
    }
    println!("cache: {}", dir.display());
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (column, (cell, width)) in row.iter().zip(widths).enumerate() {
            // Sizes and ages are right-aligned, the rest left-aligned.
            let cell = if column == 4 || column == 5 {
                format!("{cell:>width$}")
            } else {
                format!("{cell:<width$}")
            };
            line += &cell;
            line += "  ";
        }
        println!("{}", line.trim_end());
    }
    let total: u64 = entries.iter().map(|e| e.size).sum();
    println!("{} entries, {}", entries.len(), size(total));
}

/// One row of `list`: kind, kernel, backend, target, size, age, status.
fn row(entry: &Listed, identity: &str) -> [String; 7] {
    let kind = entry.kind.dir_name().to_string();
    let age = entry.age.map_or("?".to_string(), age);
    match &entry.header {
        Ok(header) => {
            let status = if header.identity == identity {
                "ok".to_string()
            } else {
                format!("another build (trident {})", header.identity)
            };
            let (kernel, backend, target) =
                (header.kernel.clone(), header.backend.clone(), header.target.clone());
            [kind, kernel, backend, target, size(entry.size), age, status]
        }
        Err(reason) => {
            [kind, "?".into(), "?".into(), "?".into(), size(entry.size), age, format!("corrupt: {reason}")]
        }
    }
}

fn clear(dir: &Path) -> Result<(), CliError> {
    let listed = directory::list(dir);
    let cleared = directory::clear(dir);
    for (path, bytes) in &cleared.removed {
        let what = listed
            .iter()
            .find(|l| l.path == *path)
            .and_then(|l| l.header.as_ref().ok())
            .map_or("a temporary or damaged file".to_string(), |h| format!("{} {}", h.kernel, h.backend));
        println!("removed {} ({what}, {})", path.display(), size(*bytes));
    }
    let total: u64 = cleared.removed.iter().map(|(_, bytes)| bytes).sum();
    println!("cache: removed {} files, {}, from {}", cleared.removed.len(), size(total), dir.display());
    if cleared.failed.is_empty() {
        return Ok(());
    }
    let failures: Vec<String> =
        cleared.failed.iter().map(|(path, error)| format!("{}: {error}", path.display())).collect();
    Err(CliError::Failed(format!(
        "cannot remove {} cache files:\n  {}",
        failures.len(),
        failures.join("\n  ")
    )))
}

/// `812 B`, `12.3 KiB`, `4.1 MiB`.
fn size(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
    }
}

/// `12 s`, `5 min`, `3 h`, `2 d`.
fn age(age: Duration) -> String {
    let secs = age.as_secs();
    match secs {
        0..60 => format!("{secs} s"),
        60..3600 => format!("{} min", secs / 60),
        3600..86400 => format!("{} h", secs / 3600),
        _ => format!("{} d", secs / 86400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_ages() {
        assert_eq!(size(812), "812 B");
        assert_eq!(size(12_595), "12.3 KiB");
        assert_eq!(size(4 * 1024 * 1024 + 100_000), "4.1 MiB");
        assert_eq!(age(Duration::from_secs(12)), "12 s");
        assert_eq!(age(Duration::from_secs(300)), "5 min");
        assert_eq!(age(Duration::from_secs(3 * 3600 + 5)), "3 h");
        assert_eq!(age(Duration::from_secs(2 * 86400)), "2 d");
    }
}
