//! A client as this service counts clients (streams per address, the
//! throttles per address): its IP address, except that an IPv6 client is
//! its /64. One IPv6 subscriber is routinely given a whole /64 (2^64
//! addresses), so counting single IPv6 addresses would let one client count
//! as as many clients as it likes.

use std::fmt;
use std::net::{IpAddr, Ipv6Addr};
use std::str::FromStr;

/// An IPv4 address, or the /64 an IPv6 address is in (an IPv4 address
/// written as IPv6, `::ffff:a.b.c.d`, is that IPv4 address).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientAddress(IpAddr);

/// Bits of an IPv6 address that name one client: its network prefix.
pub const IPV6_CLIENT_PREFIX_BITS: u32 = 64;

impl From<IpAddr> for ClientAddress {
    fn from(address: IpAddr) -> Self {
        match address.to_canonical() {
            IpAddr::V4(v4) => ClientAddress(IpAddr::V4(v4)),
            IpAddr::V6(v6) => {
                let mask = u128::MAX << (128 - IPV6_CLIENT_PREFIX_BITS);
                ClientAddress(IpAddr::V6(Ipv6Addr::from(u128::from(v6) & mask)))
            }
        }
    }
}

impl FromStr for ClientAddress {
    type Err = std::net::AddrParseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        text.parse::<IpAddr>().map(ClientAddress::from)
    }
}

impl fmt::Display for ClientAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            IpAddr::V4(v4) => write!(f, "{v4}"),
            IpAddr::V6(v6) => write!(f, "{v6}/{IPV6_CLIENT_PREFIX_BITS}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ClientAddress;

    fn client(text: &str) -> ClientAddress {
        text.parse().unwrap()
    }

    #[test]
    fn ipv6_addresses_in_one_slash_64_are_one_client() {
        assert_eq!(
            client("2001:db8:1:2::1"),
            client("2001:db8:1:2:ffff:ffff:ffff:ffff")
        );
        assert_ne!(client("2001:db8:1:2::1"), client("2001:db8:1:3::1"));
        assert_eq!(client("2001:db8:1:2::5").to_string(), "2001:db8:1:2::/64");
    }

    #[test]
    fn ipv4_addresses_are_counted_one_by_one_however_written() {
        assert_ne!(client("192.0.2.1"), client("192.0.2.2"));
        assert_eq!(client("::ffff:192.0.2.1"), client("192.0.2.1"));
        assert_eq!(client("::ffff:192.0.2.1").to_string(), "192.0.2.1");
    }
}
