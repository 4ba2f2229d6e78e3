//! `grpc.health.v1.Health` (feature `health`): what load balancers and
//! orchestrators ask a gRPC server. [`health_service`] gives the service to
//! add to a tonic server and a [`HealthReporter`] to set statuses with.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use fastrs_tonic::health::{health_service, ServingStatus};
//! let (reporter, service) = health_service();
//! reporter.set_status("acme.shop.v1.Orders", ServingStatus::Serving);
//! tonic::transport::Server::builder()
//!     .add_service(service)
//!     .serve("127.0.0.1:50051".parse()?)
//!     .await?;
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};

use tokio::sync::watch;
use tokio_stream::wrappers::WatchStream;
use tokio_stream::StreamExt as _;
use tonic::{Request, Response, Status};

/// The generated messages, client and server of `grpc.health.v1`.
#[allow(missing_docs, clippy::all)]
pub mod v1 {
    include!("generated/grpc.health.v1.rs");
}

use v1::health_server::{Health, HealthServer};
use v1::{HealthCheckRequest, HealthCheckResponse, HealthListRequest, HealthListResponse};

pub use v1::health_check_response::ServingStatus;

/// The health service: what [`health_service`] returns to add to a server.
#[derive(Debug, Clone)]
pub struct HealthService {
    statuses: Statuses,
}

/// Sets the statuses a [`HealthService`] reports. Cheap to clone.
#[derive(Debug, Clone)]
pub struct HealthReporter {
    statuses: Statuses,
}

/// Each service's status, watched: `""` is the server as a whole.
type Statuses = Arc<RwLock<HashMap<String, watch::Sender<ServingStatus>>>>;

/// The health service, with the server as a whole (`""`) `SERVING`, and
/// its reporter.
#[must_use]
pub fn health_service() -> (HealthReporter, HealthServer<HealthService>) {
    let statuses = Statuses::default();
    let reporter = HealthReporter {
        statuses: statuses.clone(),
    };
    reporter.set_status("", ServingStatus::Serving);
    (reporter, HealthServer::new(HealthService { statuses }))
}

impl HealthReporter {
    /// Sets the status of service `name` (fully qualified, as in its
    /// method paths: `acme.shop.v1.Orders`; `""` for the whole server).
    /// Watchers see the change.
    pub fn set_status(&self, name: &str, status: ServingStatus) {
        let mut statuses = self.statuses.write().unwrap_or_else(PoisonError::into_inner);
        match statuses.get(name) {
            Some(sender) => {
                sender.send_replace(status);
            }
            None => {
                statuses.insert(name.to_string(), watch::channel(status).0);
            }
        }
    }

    /// Sets the status of the service that `S` (a generated `FooServer`) serves.
    pub fn set_service_status<S: tonic::server::NamedService>(&self, status: ServingStatus) {
        self.set_status(S::NAME, status);
    }

    /// Forgets service `name`: checks answer `NOT_FOUND`, watchers see
    /// `SERVICE_UNKNOWN`.
    pub fn remove(&self, name: &str) {
        let removed = self
            .statuses
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(name);
        if let Some(sender) = removed {
            sender.send_replace(ServingStatus::ServiceUnknown);
        }
    }
}

impl HealthService {
    fn status(&self, name: &str) -> Option<ServingStatus> {
        let statuses = self.statuses.read().unwrap_or_else(PoisonError::into_inner);
        // A watched service nobody set is not known.
        statuses
            .get(name)
            .map(|s| *s.borrow())
            .filter(|s| *s != ServingStatus::ServiceUnknown)
    }
}

fn response(status: ServingStatus) -> HealthCheckResponse {
    HealthCheckResponse {
        status: status.into(),
        ..Default::default()
    }
}

/// The stream a `Watch` call answers with.
pub type WatchStatuses =
    std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<HealthCheckResponse, Status>> + Send>>;

#[tonic::async_trait]
impl Health for HealthService {
    async fn check(&self, request: Request<HealthCheckRequest>) -> Result<Response<HealthCheckResponse>, Status> {
        let name = request.into_inner().service;
        match self.status(&name) {
            Some(status) => Ok(Response::new(response(status))),
            None => Err(Status::not_found(format!("unknown service {name:?}"))),
        }
    }

    async fn list(&self, _: Request<HealthListRequest>) -> Result<Response<HealthListResponse>, Status> {
        let statuses = self.statuses.read().unwrap_or_else(PoisonError::into_inner);
        let statuses = statuses
            .iter()
            .map(|(name, s)| (name.clone(), *s.borrow()))
            .filter(|(_, s)| *s != ServingStatus::ServiceUnknown)
            .map(|(name, s)| (name, response(s)))
            .collect();
        Ok(Response::new(HealthListResponse {
            statuses,
            ..Default::default()
        }))
    }

    type WatchStream = WatchStatuses;

    async fn watch(&self, request: Request<HealthCheckRequest>) -> Result<Response<WatchStatuses>, Status> {
        let name = request.into_inner().service;
        let receiver = {
            let mut statuses = self.statuses.write().unwrap_or_else(PoisonError::into_inner);
            // An unknown service is watched too: it may be set later.
            statuses
                .entry(name)
                .or_insert_with(|| watch::channel(ServingStatus::ServiceUnknown).0)
                .subscribe()
        };
        let stream = WatchStream::new(receiver).map(|status| Ok(response(status)));
        Ok(Response::new(Box::pin(stream)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn statuses_are_set_watched_and_removed() {
        let (reporter, server) = health_service();
        let service = HealthService {
            statuses: reporter.statuses.clone(),
        };
        let _ = server;
        let ask = |name: &str| {
            Request::new(HealthCheckRequest {
                service: name.into(),
                ..Default::default()
            })
        };
        let status = |r: Result<Response<HealthCheckResponse>, Status>| r.map(|r| r.into_inner().status);
        assert_eq!(status(service.check(ask("")).await).unwrap(), ServingStatus::Serving);
        assert_eq!(
            status(service.check(ask("a.B")).await).unwrap_err().code(),
            tonic::Code::NotFound
        );

        let mut watch = service.watch(ask("a.B")).await.unwrap().into_inner();
        async fn next(w: &mut WatchStatuses) -> fastrs::EnumValue<ServingStatus> {
            w.next().await.unwrap().unwrap().status
        }
        assert_eq!(next(&mut watch).await, ServingStatus::ServiceUnknown);
        // Watching does not make a service known.
        assert_eq!(
            status(service.check(ask("a.B")).await).unwrap_err().code(),
            tonic::Code::NotFound
        );

        reporter.set_status("a.B", ServingStatus::NotServing);
        assert_eq!(next(&mut watch).await, ServingStatus::NotServing);
        let listed = service
            .list(Request::new(HealthListRequest::default()))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(listed.statuses.len(), 2);

        reporter.remove("a.B");
        assert_eq!(next(&mut watch).await, ServingStatus::ServiceUnknown);
        assert_eq!(
            status(service.check(ask("a.B")).await).unwrap_err().code(),
            tonic::Code::NotFound
        );
    }
}
