//! HTTP handlers: thin adapters from requests to [`umpire_service`].

pub mod archives;
pub mod documents;
pub mod error_answers;
pub mod games;
pub mod health;
pub mod home;
pub mod invitations;
pub mod rules;
pub mod seat_devices;
pub mod stream;
pub mod viewer;
