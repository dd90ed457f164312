//! What an executable tells its runtime about its riders (the AOT and C backends write
//! it, `dtlv_rt_run_linked` reads it): the **rider manifest**, naming the riders the
//! program requires and the symbol of every native it calls, and one **native slot** per
//! symbol, which the runtime fills with the native's address at start and compiled code
//! calls through.
//!
//! The manifest is bytes: per rider, its name, then each native's symbol, every one
//! followed by a NUL, and an empty string after the rider's last symbol; an empty rider
//! name ends the manifest. Slot `k` belongs to the `k`-th symbol in manifest order.
//!
//! ```text
//! "std\0dlr_std__concat\0dlr_std__len\0\0probe\0\0\0"   // std: 2 natives; probe: none
//! ```

/// The riders of a program, in order, each with the symbols of the natives it calls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RiderManifest {
    pub riders: Vec<(String, Vec<String>)>,
}

impl RiderManifest {
    /// The manifest's bytes, ending with its terminating empty name.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for (rider, symbols) in &self.riders {
            for word in std::iter::once(rider).chain(symbols) {
                debug_assert!(!word.is_empty() && !word.contains('\0'));
                out.extend_from_slice(word.as_bytes());
                out.push(0);
            }
            out.push(0);
        }
        out.push(0);
        out
    }

    /// The manifest `bytes` hold (which may go on past its end).
    pub fn decode(bytes: &[u8]) -> Result<RiderManifest, String> {
        let mut words = bytes.split(|&b| b == 0);
        RiderManifest::parse(|| words.next())
    }

    /// The manifest at `manifest`, read up to its terminating empty name.
    ///
    /// # Safety
    /// `manifest` points at a complete manifest (as [`RiderManifest::encode`] writes).
    pub unsafe fn read(manifest: *const u8) -> Result<RiderManifest, String> {
        let mut at = manifest;
        RiderManifest::parse(|| {
            // SAFETY: every word of a complete manifest ends with a NUL, and the
            // parse stops at the manifest's end.
            let word = unsafe { std::ffi::CStr::from_ptr(at.cast()) }.to_bytes();
            at = unsafe { at.add(word.len() + 1) };
            Some(word)
        })
    }

    /// The manifest made of the words `next` gives, in order.
    fn parse<'a>(mut next: impl FnMut() -> Option<&'a [u8]>) -> Result<RiderManifest, String> {
        let mut word = || -> Result<String, String> {
            let w = next().ok_or("the rider manifest has no end")?;
            String::from_utf8(w.to_vec())
                .map_err(|_| "a name in the rider manifest is not UTF-8".to_string())
        };
        let mut riders = Vec::new();
        loop {
            let rider = word()?;
            if rider.is_empty() {
                return Ok(RiderManifest { riders });
            }
            let mut symbols = Vec::new();
            loop {
                let symbol = word()?;
                if symbol.is_empty() {
                    break;
                }
                symbols.push(symbol);
            }
            riders.push((rider, symbols));
        }
    }

    /// How many native slots the manifest needs: one per symbol.
    pub fn slot_count(&self) -> usize {
        self.riders.iter().map(|(_, s)| s.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_reads_back_as_written() {
        let manifest = RiderManifest {
            riders: vec![
                ("std".into(), vec!["dlr_std__a".into(), "dlr_std__b".into()]),
                ("probe".into(), vec![]),
                ("c".into(), vec!["dlr_c__x".into()]),
            ],
        };
        let mut bytes = manifest.encode();
        assert_eq!(
            bytes,
            b"std\0dlr_std__a\0dlr_std__b\0\0probe\0\0c\0dlr_c__x\0\0\0"
        );
        assert_eq!(RiderManifest::decode(&bytes).unwrap(), manifest);
        bytes.extend_from_slice(b"after\0");
        assert_eq!(
            unsafe { RiderManifest::read(bytes.as_ptr()) }.unwrap(),
            manifest
        );
        assert_eq!(manifest.slot_count(), 3);
        let empty = RiderManifest::default();
        assert_eq!(empty.encode(), b"\0");
        assert_eq!(
            unsafe { RiderManifest::read(c"".as_ptr().cast()) }.unwrap(),
            empty
        );
        assert!(RiderManifest::decode(b"std\0dlr").is_err());
    }
}
