//! The one fact read from an ELF file: which machine it is for, so that a program or a
//! rider library built for another architecture is named as such, not mistaken for a
//! broken one.

use std::io::Read;
use std::path::Path;

pub const EM_X86_64: u16 = 62;
pub const EM_AARCH64: u16 = 183;
pub const EM_RISCV: u16 = 243;

/// The `e_machine` of the ELF file at `path`; `None` when it is not an ELF file (or
/// cannot be read).
pub fn elf_machine(path: &Path) -> Option<u16> {
    let mut header = [0u8; 20];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut header))
        .ok()?;
    elf_machine_of(&header)
}

/// The `e_machine` of ELF bytes (at least the first 20).
pub fn elf_machine_of(bytes: &[u8]) -> Option<u16> {
    if bytes.len() < 20 || &bytes[..4] != b"\x7fELF" {
        return None;
    }
    // EI_DATA: 1 little endian, 2 big endian.
    let pair = [bytes[18], bytes[19]];
    Some(match bytes[5] {
        2 => u16::from_be_bytes(pair),
        _ => u16::from_le_bytes(pair),
    })
}

/// How a machine is named in messages.
pub fn machine_name(machine: u16) -> String {
    match machine {
        EM_X86_64 => "x86-64".to_string(),
        EM_AARCH64 => "aarch64".to_string(),
        EM_RISCV => "riscv".to_string(),
        3 => "i386".to_string(),
        other => format!("ELF machine {other}"),
    }
}
