//! The one checksum of the files score4 writes (books, split records, the
//! solver's journal): FNV-1a, enough to catch a damaged or edited file (it
//! is not a defence against forgery).

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

#[cfg(test)]
mod tests {
    use super::fnv1a;

    #[test]
    fn published_values() {
        // Test vectors of the FNV reference: the empty input and "a".
        assert_eq!(fnv1a([&b""[..]]), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a([&b"a"[..]]), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a([&b"foo"[..]]), fnv1a([&b"f"[..], &b"oo"[..]]));
    }
}
