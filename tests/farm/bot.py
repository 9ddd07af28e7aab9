"""A minimal Remote Execution worker for the tests: a bot over BuildGrid's Bots API.

It opens a bot session, takes one lease at a time, fetches the action's input root from the
CAS (each blob once: later leases link it from a local store), runs the command in a scratch
directory, puts the declared outputs and stderr in the CAS and completes the lease with the
ActionResult. While a command runs, the session is kept alive with UpdateBotSession calls.

Usage: python bot.py GRPC_ADDRESS INSTANCE BOT_ID WORK_DIR

Kept in the tests only (not shipped): it runs whatever the farm hands it.
"""

import hashlib
import os
import select
import shutil
import subprocess
import sys
import time

import grpc
from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2 as re
from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2_grpc as re_grpc
from buildgrid._protos.google.bytestream import bytestream_pb2, bytestream_pb2_grpc
from buildgrid._protos.google.devtools.remoteworkers.v1test2 import bots_pb2, bots_pb2_grpc
from google.protobuf import any_pb2

OK_STATUS = 1  # BotStatus.OK
LEASE_ACTIVE = 2
LEASE_COMPLETED = 4
BATCH_LIMIT = 2 << 20


def sha256(data):
    return hashlib.sha256(data).hexdigest()


class Cas:
    def __init__(self, channel, instance, store):
        self.cas = re_grpc.ContentAddressableStorageStub(channel)
        self.bytestream = bytestream_pb2_grpc.ByteStreamStub(channel)
        self.instance = instance
        self.store = store
        os.makedirs(store, exist_ok=True)

    def path(self, digest):
        """The local copy of a blob, fetched on first use."""
        path = os.path.join(self.store, digest.hash)
        if not os.path.exists(path):
            data = self.read(digest)
            if sha256(data) != digest.hash:
                raise RuntimeError("blob %s came back with other bytes" % digest.hash)
            tmp = path + ".%d.tmp" % os.getpid()
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        return path

    def read(self, digest):
        if digest.size_bytes <= BATCH_LIMIT:
            response = self.cas.BatchReadBlobs(
                re.BatchReadBlobsRequest(instance_name=self.instance, digests=[digest])
            )
            for r in response.responses:
                if r.status.code == 0:
                    return r.data
            raise RuntimeError("blob %s is missing" % digest.hash)
        prefix = self.instance + "/" if self.instance else ""
        name = "%sblobs/%s/%d" % (prefix, digest.hash, digest.size_bytes)
        chunks = self.bytestream.Read(bytestream_pb2.ReadRequest(resource_name=name))
        return b"".join(c.data for c in chunks)

    def message(self, digest, message):
        with open(self.path(digest), "rb") as f:
            message.ParseFromString(f.read())
        return message

    def put(self, data):
        return self.put_all([data])[0]

    def put_all(self, blobs):
        """Stores `blobs` in as few BatchUpdateBlobs calls as the batch limit allows."""
        digests = [re.Digest(hash=sha256(data), size_bytes=len(data)) for data in blobs]
        request, size = None, 0
        for digest, data in zip(digests, blobs):
            if request is not None and size + len(data) > BATCH_LIMIT:
                self.update(request)
                request = None
            if request is None:
                request, size = re.BatchUpdateBlobsRequest(instance_name=self.instance), 0
            request.requests.add(digest=digest, data=data)
            size += len(data)
        if request is not None:
            self.update(request)
        return digests

    def update(self, request):
        for r in self.cas.BatchUpdateBlobs(request).responses:
            if r.status.code != 0:
                raise RuntimeError("storing blob %s: %s" % (r.digest.hash, r.status.message))


def stage(cas, digest, into):
    """Lays the Directory `digest` out under `into`, files linked from the local store."""
    directory = cas.message(digest, re.Directory())
    os.makedirs(into, exist_ok=True)
    for f in directory.files:
        target = os.path.join(into, f.name)
        source = cas.path(f.digest)
        try:
            os.link(source, target)
        except OSError:
            shutil.copyfile(source, target)
        os.chmod(target, 0o755 if f.is_executable else 0o644)
    for d in directory.directories:
        stage(cas, d.digest, os.path.join(into, d.name))


def run_lease(cas, action, scratch, keepalive):
    """Runs `action` in `scratch`; its ActionResult and the lease's status code."""
    command = cas.message(action.command_digest, re.Command())
    if os.path.exists(scratch):
        shutil.rmtree(scratch)
    t0 = time.monotonic()
    stage(cas, action.input_root_digest, scratch)
    t1 = time.monotonic()
    env = {"PATH": "/usr/bin:/bin"}
    for variable in command.environment_variables:
        env[variable.name] = variable.value
    timeout = action.timeout.seconds + action.timeout.nanos / 1e9 if action.HasField("timeout") else None
    cwd = os.path.join(scratch, command.working_directory)
    program = command.arguments[0]
    if "/" in program and not os.path.isabs(program):
        program = os.path.join(cwd, program)
    stdout_path = os.path.join(scratch, ".stdout")
    stderr_path = os.path.join(scratch, ".stderr")
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        child = subprocess.Popen(
            [program] + list(command.arguments[1:]), cwd=cwd, env=env, stdout=out, stderr=err
        )
        started = time.monotonic()
        timed_out = False
        # A descriptor that becomes readable when the command ends: waiting on it wakes at
        # once (Popen.wait with a timeout polls, sleeping up to 50 ms between looks).
        ended = os.pidfd_open(child.pid)
        try:
            while True:
                keepalive()
                left = 1.0
                if timeout:
                    left = min(left, timeout - (time.monotonic() - started))
                if select.select([ended], [], [], max(left, 0.0))[0]:
                    child.wait()
                    break
                if timeout and time.monotonic() - started > timeout:
                    child.kill()
                    child.wait()
                    timed_out = True
                    break
        finally:
            os.close(ended)
    t2 = time.monotonic()
    result = re.ActionResult(exit_code=child.returncode if not timed_out else -1)
    outputs = list(command.output_paths) or list(command.output_files)
    names, blobs = [], []
    for name in outputs:
        path = os.path.join(cwd, name)
        if os.path.isfile(path):
            with open(path, "rb") as f:
                names.append(name)
                blobs.append(f.read())
    for path in (stderr_path, stdout_path):
        with open(path, "rb") as f:
            blobs.append(f.read())
    # All outputs in as few calls as fit: one round trip for a batch of entries.
    digests = cas.put_all(blobs)
    for name, digest in zip(names, digests):
        result.output_files.add(path=name, digest=digest)
    result.stderr_digest.CopyFrom(digests[-2])
    result.stdout_digest.CopyFrom(digests[-1])
    shutil.rmtree(scratch, ignore_errors=True)
    if os.environ.get("SLANGPACK_BOT_TIMES"):
        print("stage %.3f run %.3f outputs %.3f" % (t1 - t0, t2 - t1, time.monotonic() - t2), file=sys.stderr, flush=True)
    return result, (4 if timed_out else 0)  # DEADLINE_EXCEEDED


def main():
    address, instance, bot_id, work = sys.argv[1:5]
    channel = grpc.insecure_channel(address)
    bots = bots_pb2_grpc.BotsStub(channel)
    cas = Cas(channel, instance, os.path.join(work, "store"))
    session = bots_pb2.BotSession(bot_id=bot_id, status=OK_STATUS)
    for attempt in range(100):  # the server may still be starting
        try:
            session = bots.CreateBotSession(
                bots_pb2.CreateBotSessionRequest(parent=instance, bot_session=session), timeout=10
            )
            break
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.UNAVAILABLE or attempt == 99:
                raise
            time.sleep(0.2)
    last_update = [time.monotonic()]

    def update(timeout=10):
        nonlocal session
        for attempt in range(50):
            try:
                session = bots.UpdateBotSession(
                    bots_pb2.UpdateBotSessionRequest(name=session.name, bot_session=session),
                    timeout=timeout,
                )
                break
            except grpc.RpcError as e:
                # A server at its limit of concurrent calls refuses this one: asked again
                # (losing the bot would lose its lease too).
                if e.code() != grpc.StatusCode.RESOURCE_EXHAUSTED or attempt == 49:
                    raise
                time.sleep(0.01 * (attempt + 1))
        last_update[0] = time.monotonic()

    def keepalive():
        if time.monotonic() - last_update[0] > 1.0:
            update()

    while True:
        pending = [lease for lease in session.leases if lease.state != LEASE_COMPLETED]
        if not pending:
            try:
                update()
            except grpc.RpcError as e:
                if e.code() in (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE):
                    time.sleep(0.2)
                    continue
                raise
            continue
        lease = pending[0]
        # One line per lease: the tests count the actions the farm ran.
        print("lease %s at %.3f" % (lease.id, time.monotonic()), file=sys.stderr, flush=True)
        lease.state = LEASE_ACTIVE
        lease_id = lease.id
        action = re.Action()
        if lease.payload.Is(re.Action.DESCRIPTOR):
            lease.payload.Unpack(action)
        else:
            digest = re.Digest()
            lease.payload.Unpack(digest)
            action = cas.message(digest, re.Action())
        message = ""
        try:
            result, code = run_lease(cas, action, os.path.join(work, "scratch"), keepalive)
        except Exception as e:  # the lease fails, the bot goes on
            result = re.ActionResult(exit_code=-1)
            code, message = 13, str(e)  # INTERNAL
        # The session was replaced by each keep-alive: complete the lease it holds now.
        lease = next((l for l in session.leases if l.id == lease_id), None)
        if lease is None:
            continue
        lease.status.code = code
        lease.status.message = message
        packed = any_pb2.Any()
        packed.Pack(result)
        lease.result.CopyFrom(packed)
        lease.state = LEASE_COMPLETED
        update()


if __name__ == "__main__":
    main()
