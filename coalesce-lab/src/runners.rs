//! coalesce-lab's runners: what `LAB.open` prepares for each case (the scrape workload's runner
//! is [`crate::scrapes`]'s).

use std::sync::Arc;

use labkit::lab::Runner;

use crate::load::LoadGenerator;
use crate::oha::Oha;
use crate::scrapes::{Generators, Scrapes, serial_capacity};
use crate::server::Server;
use crate::workload::{Scenario, Shape};
use crate::{Generator, ImplementationBuilder, MetricsEndpoint};

/// Which load generator drives a runner's server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Client {
    /// The lab's own ([`crate::load`]).
    Lab,
    /// `oha`, for the cross-check ([`crate::oha`]).
    Oha,
}

/// What a case prepares for the design it is opened on: a server started for `scenario`, with
/// `client` connected to drive it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Setup {
    pub(crate) scenario: Scenario,
    pub(crate) client: Client,
}

/// Opens a runner of the design it is built for.
impl ImplementationBuilder for Setup {
    type Output = Result<Box<dyn Runner>, String>;

    fn build<E: MetricsEndpoint>(&mut self) -> Self::Output {
        let Setup { scenario, client } = *self;
        if let Shape::Closed { users } = scenario.shape
            && users > OPEN_FILES_ENOUGH
        {
            // Two descriptors per user (client and server side), twice over to spare.
            labkit::process::raise_open_files(4 * users as u64 + 256)?;
        }
        let load = scenario.load(|| serial_capacity(&scenario))?;
        let start = move || -> Result<(Server, Generators), String> {
            let server = Server::start::<E>(
                Arc::new(Generator::new(scenario.broker())),
                Some(scenario.timeout),
            )
            .map_err(|e| format!("cannot start the server: {e}"))?;
            let client = match client {
                Client::Lab => Generators::Lab(LoadGenerator::new(server.addr())?),
                Client::Oha => Generators::Oha(Oha::new(server.addr())?),
            };
            Ok((server, client))
        };
        Ok(Box::new(Scrapes::start(Box::new(start), load, scenario)?))
    }
}

/// Users a default open-files limit (1,024) carries without raising it.
const OPEN_FILES_ENOUGH: usize = 400;
