//! The checksums of the files score4 writes, enough to catch a damaged or
//! edited file (neither is a defence against forgery):
//!
//! - FNV-1a, 64 bits, for books, split records and the solver's journal:
//!   one sum per file or per line of text.
//! - CRC-32 for the fixed-size records of a book build's checkpoint: four
//!   bytes per record, and any burst of damage up to 32 bits within one
//!   is caught.

/// FNV-1a over `parts`, one after the other.
pub(crate) fn fnv1a<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &byte in part {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    hash
}

/// The CRC-32 (IEEE 802.3, reflected, as zlib computes it) table.
const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
};

/// Feeds `bytes` to a CRC-32 in progress (start from `!0`).
pub(crate) fn crc32_update(mut state: u32, bytes: &[u8]) -> u32 {
    for &b in bytes {
        state = CRC_TABLE[((state ^ u32::from(b)) & 0xFF) as usize] ^ (state >> 8);
    }
    state
}

/// The CRC-32 of a finished state.
pub(crate) fn crc32(state: u32) -> u32 {
    !state
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_is_the_standard_one() {
        // The check value every CRC-32 (IEEE) implementation publishes.
        assert_eq!(crc32(crc32_update(!0, b"123456789")), 0xCBF4_3926);
        assert_eq!(crc32(crc32_update(!0, b"")), 0);
    }

    #[test]
    fn published_values() {
        // Test vectors of the FNV reference: the empty input and "a".
        assert_eq!(fnv1a([&b""[..]]), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a([&b"a"[..]]), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a([&b"foo"[..]]), fnv1a([&b"f"[..], &b"oo"[..]]));
    }
}
