//! A JSON request body that must be an object.
//!
//! serde's derived structs also accept a JSON array of their fields in
//! order (`["code"]` for `{"code": "…"}`): a shape the spec never
//! promises, which a client would come to rely on. Bodies are read as
//! `web::Json` is (its limit, content type and error handler), but only an
//! object is taken.

use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;

use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};
use futures_util::future::{FutureExt, LocalBoxFuture};
use serde::de::{DeserializeOwned, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// A request body read as a JSON object into `T`.
#[derive(Debug)]
pub struct JsonObject<T>(pub T);

impl<T> JsonObject<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> Deref for JsonObject<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: DeserializeOwned + 'static> FromRequest for JsonObject<T> {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        web::Json::<Object<T>>::from_request(request, payload)
            .map(|read| read.map(|json| JsonObject(json.into_inner().0)))
            .boxed_local()
    }
}

/// `T`, deserialized only from a map.
#[derive(Debug)]
struct Object<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ObjectVisitor(PhantomData))
    }
}

struct ObjectVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
    type Value = Object<T>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Object<T>, A::Error> {
        T::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Object)
    }
}

#[cfg(test)]
mod tests {
    use super::Object;

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Redeem {
        code: String,
    }

    #[test]
    fn an_object_is_read_and_an_array_of_its_fields_is_not() {
        let read: Object<Redeem> = serde_json::from_str(r#"{"code": "abc"}"#).unwrap();
        assert_eq!(read.0, Redeem { code: "abc".into() });
        let error = serde_json::from_str::<Object<Redeem>>(r#"["abc"]"#).unwrap_err();
        assert!(
            error.to_string().contains("expected a JSON object"),
            "{error}"
        );
        assert!(
            serde_json::from_str::<Redeem>(r#"["abc"]"#).is_ok(),
            "serde alone takes it"
        );
    }
}
