//! Who a request comes from, for what is limited per client address (live
//! streams, games created on an open service, failed redemptions): the connection's peer, or, when the peer is a proxy the
//! operator trusts (`--trusted-proxy`, e.g. the nginx of the reference
//! deployment), the address that proxy says it forwarded for.
//!
//! Only the proxy's own entry is believed: `X-Forwarded-For` is read from
//! the right, past the trusted proxies, so entries a client wrote itself
//! (on the left) are never taken for its address.

use std::net::IpAddr;

use actix_web::HttpRequest;
use umpire_service::ClientAddress;

/// The proxies whose `X-Forwarded-For` is believed; none by default.
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies(Vec<IpAddr>);

impl TrustedProxies {
    pub fn new(addresses: Vec<IpAddr>) -> TrustedProxies {
        TrustedProxies(addresses)
    }

    /// The address `request` comes from, as this service counts clients
    /// (an IPv6 client by its /64: [`ClientAddress`]).
    pub fn client_of(&self, request: &HttpRequest) -> Option<ClientAddress> {
        let peer = request.peer_addr().map(|address| address.ip());
        let forwarded = request
            .headers()
            .get_all("x-forwarded-for")
            .filter_map(|value| value.to_str().ok());
        self.client_behind(peer, forwarded).map(ClientAddress::from)
    }

    /// The rightmost address in the `X-Forwarded-For` values that is not
    /// a trusted proxy, when `peer` is one; `peer` otherwise, and when the
    /// header is missing or unreadable.
    fn client_behind<'a>(
        &self,
        peer: Option<IpAddr>,
        forwarded: impl Iterator<Item = &'a str>,
    ) -> Option<IpAddr> {
        if !peer.is_some_and(|peer| self.0.contains(&peer)) {
            return peer;
        }
        let entries: Vec<&str> = forwarded.flat_map(|value| value.split(',')).collect();
        for entry in entries.iter().rev() {
            match entry.trim().parse::<IpAddr>() {
                Ok(address) if self.0.contains(&address) => continue,
                Ok(address) => return Some(address),
                // An entry that is no address: the chain cannot be read past
                // it, and the proxy that wrote what follows is the client.
                Err(_) => break,
            }
        }
        peer
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn a_trusted_proxys_entry_names_the_client() {
        let proxies = TrustedProxies::new(vec![ip("127.0.0.1")]);
        let client = proxies.client_behind(Some(ip("127.0.0.1")), ["10.0.0.7"].into_iter());
        assert_eq!(client, Some(ip("10.0.0.7")));
    }

    #[test]
    fn entries_a_client_wrote_itself_are_not_believed() {
        let proxies = TrustedProxies::new(vec![ip("127.0.0.1")]);
        let client = proxies.client_behind(
            Some(ip("127.0.0.1")),
            ["1.2.3.4, 5.6.7.8", "10.0.0.7"].into_iter(),
        );
        assert_eq!(client, Some(ip("10.0.0.7")), "the proxy's own entry");
        let chained = TrustedProxies::new(vec![ip("127.0.0.1"), ip("10.0.0.2")]);
        let client = chained.client_behind(
            Some(ip("127.0.0.1")),
            ["9.9.9.9, 10.0.0.7, 10.0.0.2"].into_iter(),
        );
        assert_eq!(client, Some(ip("10.0.0.7")), "past each trusted proxy");
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_says() {
        let proxies = TrustedProxies::new(vec![ip("127.0.0.1")]);
        let client = proxies.client_behind(Some(ip("10.0.0.9")), ["10.0.0.7"].into_iter());
        assert_eq!(client, Some(ip("10.0.0.9")));
        let none = TrustedProxies::default();
        let client = none.client_behind(Some(ip("127.0.0.1")), ["10.0.0.7"].into_iter());
        assert_eq!(client, Some(ip("127.0.0.1")), "no proxy trusted by default");
    }

    #[test]
    fn an_unreadable_chain_counts_the_proxy_itself() {
        let proxies = TrustedProxies::new(vec![ip("127.0.0.1")]);
        for header in ["", "unknown", "10.0.0.7, junk"] {
            let client = proxies.client_behind(Some(ip("127.0.0.1")), [header].into_iter());
            assert_eq!(client, Some(ip("127.0.0.1")), "{header:?}");
        }
    }
}
