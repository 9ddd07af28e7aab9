//! Running actions on a build farm through the Remote Execution API's `Execution` service: the
//! action and its inputs are put in the farm's CAS first (only what it lacks), then
//! `Execute` is called and its stream of `Operation`s followed to the end (`WaitExecution`
//! picks a stream up again when the server closes it before the operation is done).
//!
//! Errors come in two kinds ([`ExecError`]): the farm could not be reached or refused the
//! call (a bake may compile locally instead), or the farm ran the action and it failed (the
//! permutation fails).

use crate::grpc::GrpcStore;
use crate::reapi::{
    digest_function, execution_client::ExecutionClient, ActionResult, Digest, ExecuteRequest,
    ExecuteResponse, WaitExecutionRequest,
};
use crate::Store;
use bazel_remote_apis::google::longrunning::{operation, Operation};
use std::time::{Duration, Instant};

/// Why an action did not come back with a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecError {
    /// The farm could not be reached, or refused the call as a whole (unavailable, out of
    /// capacity, execution not enabled): nothing is known of the action itself.
    Farm(String),
    /// The farm took the action and it failed there (a timeout, a lost worker, an error the
    /// scheduler reported).
    Action(String),
}

impl std::fmt::Display for ExecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExecError::Farm(why) | ExecError::Action(why) => f.write_str(why),
        }
    }
}

/// A finished action: its result, and whether the farm took it from its action cache.
#[derive(Debug, Clone)]
pub struct Executed {
    /// The action's result (its exit code, output files and stderr by digest).
    pub result: ActionResult,
    /// Whether the farm answered from its action cache without running it.
    pub cached: bool,
}

/// Whether a gRPC status says the farm as a whole is out of reach or refusing, rather than
/// that this action failed.
fn is_farm_down(code: tonic::Code) -> bool {
    matches!(
        code,
        tonic::Code::Unavailable
            | tonic::Code::Unimplemented
            | tonic::Code::Unauthenticated
            | tonic::Code::PermissionDenied
    )
}

/// `status` as an [`ExecError`] naming the call.
fn status_error(call: &str, status: &tonic::Status) -> ExecError {
    let why = format!("{call}: {:?}: {}", status.code(), status.message());
    if is_farm_down(status.code()) {
        ExecError::Farm(why)
    } else {
        ExecError::Action(why)
    }
}

/// Where the bytes of a blob [`GrpcStore::upload_missing`] sends are.
pub enum Upload {
    /// In memory.
    Bytes(Vec<u8>),
    /// In a file whose content has the blob's digest (sent a chunk at a time as it is read).
    File(std::path::PathBuf),
}

impl GrpcStore {
    /// Whether the server said, in its capabilities, that it executes actions.
    #[must_use]
    pub fn executes(&self) -> bool {
        self.exec_enabled
    }

    /// Puts those of `blobs` the server lacks into its CAS; `read` says where a blob's bytes
    /// are when it must be sent (so that large blobs, a toolchain's, are read only when
    /// missing, and a file is sent as it is read, never held whole). Returns how many bytes
    /// were sent.
    ///
    /// # Errors
    /// A message when the server cannot answer, or `read` fails.
    pub fn upload_missing(
        &mut self,
        blobs: &[Digest],
        read: &mut dyn FnMut(&Digest) -> Result<Upload, String>,
    ) -> Result<u64, String> {
        let mut sent = 0u64;
        let missing = self.find_missing(blobs)?;
        for blob in &missing {
            let size = u64::try_from(blob.size_bytes).unwrap_or(u64::MAX);
            match read(blob)? {
                Upload::Bytes(bytes) => {
                    if bytes.len() as u64 != size {
                        return Err(format!("blob {} changed while being sent", blob.hash));
                    }
                    self.write_blob(blob, &bytes)?;
                }
                Upload::File(path) => self.write_file(blob, &path)?,
            }
            sent += size;
        }
        Ok(sent)
    }

    /// Runs `action` on the farm and waits for it, at most `limit` in all; with
    /// `skip_cache_lookup`, the farm runs it even when its action cache holds a result.
    ///
    /// # Errors
    /// [`ExecError::Farm`] when the farm cannot be reached or refuses the call,
    /// [`ExecError::Action`] when it reports the action failed (or `limit` passed).
    pub fn execute(
        &self,
        action: &Digest,
        skip_cache_lookup: bool,
        limit: Duration,
    ) -> Result<Executed, ExecError> {
        let start = Instant::now();
        let mut request = self.request(ExecuteRequest {
            instance_name: self.instance.clone(),
            skip_cache_lookup,
            action_digest: Some(action.clone()),
            digest_function: digest_function::Value::Sha256 as i32,
            ..Default::default()
        });
        request.set_timeout(limit);
        let mut client = ExecutionClient::new(self.channel.clone());
        let mut last = self
            .run_for("Execute", limit, async move {
                follow(client.execute(request).await, "Execute").await
            })
            .map_err(ExecError::Action)??;
        // The server closed the stream before the operation was done: wait on it by name.
        while !last.done {
            let left = limit.saturating_sub(start.elapsed());
            if left.is_zero() || last.name.is_empty() {
                return Err(ExecError::Action(format!(
                    "the farm did not finish the action within {limit:?}"
                )));
            }
            let mut request = self.request(WaitExecutionRequest {
                name: last.name.clone(),
            });
            request.set_timeout(left);
            let mut client = ExecutionClient::new(self.channel.clone());
            last = self
                .run_for("WaitExecution", left, async move {
                    follow(client.wait_execution(request).await, "WaitExecution").await
                })
                .map_err(ExecError::Action)??;
        }
        finished(&last)
    }
}

/// The last `Operation` of a stream (the one that is done, or the last before the stream
/// ended).
async fn follow(
    stream: Result<tonic::Response<tonic::Streaming<Operation>>, tonic::Status>,
    call: &str,
) -> Result<Result<Operation, ExecError>, String> {
    // A refusal of the call names whose it is: the farm's (down, refusing) or the action's
    // (an argument the farm does not take, such as a timeout past its maximum).
    let mut stream = match stream {
        Ok(response) => response.into_inner(),
        Err(status) => return Ok(Err(status_error(call, &status))),
    };
    let mut last = Operation::default();
    loop {
        match stream.message().await {
            Ok(Some(operation)) => {
                let done = operation.done;
                last = operation;
                if done {
                    return Ok(Ok(last));
                }
            }
            Ok(None) => return Ok(Ok(last)),
            // A stream cut after the operation was named is picked up again by name.
            Err(_) if !last.name.is_empty() => return Ok(Ok(last)),
            Err(s) => return Ok(Err(status_error(call, &s))),
        }
    }
}

/// The result a finished operation holds.
fn finished(operation: &Operation) -> Result<Executed, ExecError> {
    use prost::Message;
    let response = match &operation.result {
        Some(operation::Result::Response(any)) => ExecuteResponse::decode(any.value.as_slice())
            .map_err(|e| ExecError::Action(format!("the farm's answer does not decode: {e}")))?,
        Some(operation::Result::Error(status)) => {
            return Err(reported(status.code, &status.message));
        }
        None => {
            return Err(ExecError::Action(
                "the farm's answer holds no result".into(),
            ))
        }
    };
    if let Some(status) = response.status.as_ref().filter(|s| s.code != 0) {
        return Err(reported(status.code, &status.message));
    }
    let result = response
        .result
        .ok_or_else(|| ExecError::Action("the farm's answer holds no action result".into()))?;
    Ok(Executed {
        result,
        cached: response.cached_result,
    })
}

/// The error a farm's status `code` and `message` stand for: the farm's (down, refusing)
/// or the action's own.
fn reported(code: i32, message: &str) -> ExecError {
    let code = tonic::Code::from_i32(code);
    let why = format!("the farm reports {code:?}: {message}");
    if is_farm_down(code) {
        ExecError::Farm(why)
    } else {
        ExecError::Action(why)
    }
}
