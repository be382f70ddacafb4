use super::*;

#[test]
fn check_values() {
    for v in Variant::ALL {
        let s = v.spec();
        assert_eq!(s.bitwise(b"123456789"), s.check, "{}", s.name);
        assert_eq!(checksum(s, b"123456789"), s.check, "{}", s.name);
        assert_eq!(v.checksum(b"123456789"), s.check, "{}", s.name);
        assert_eq!(Variant::from_name(v.name()), Some(*v));
    }
}
