#pragma once
// Encryption between hosts: ZeroMQ CURVE (Curve25519 keys, libsodium).
//
// The rule is the endpoint's: a tcp:// socket whose host is not a loopback address
// (127.0.0.0/8, localhost, ::1) carries traffic between machines, so it is always
// encrypted and authenticated; ipc:// and loopback sockets never leave the machine and
// stay plain. Both ends apply the same rule to the same address, so they agree
// without a flag.
//
// Keys: a server's key pair is derived from the cluster token (BLAKE2b of the token,
// the seed of a Curve25519 key pair), so only a process that holds the token can serve
// or reach the cluster's sockets: a client without it cannot complete the handshake
// (CURVE never sends the server's public key), and a server without it cannot answer.
// Clients use a key pair of their own, made once per process.
//
// Process-wide: a process serves and reaches one cluster. UseClusterToken is called
// where the token is loaded (the GCS server, GcsClient); thread-safe.

#include <string>
#include <string_view>

#include <zmq.hpp>

#include "runtime/base/status.h"

namespace ray::transport {

// Sets the token the keys derive from (a later call with another token replaces it).
// The keys are made when a socket first needs them.
void UseClusterToken(std::string_view token);

// Whether `endpoint` (as given to bind or connect) is encrypted by the rule above.
bool Encrypted(const std::string& endpoint);

// Makes `socket` a CURVE server, or a CURVE client of the cluster's servers.
// FailedPrecondition if no cluster token was given to this process.
Status MakeCurveServer(zmq::socket_t& socket, const std::string& endpoint);
Status MakeCurveClient(zmq::socket_t& socket, const std::string& endpoint);

}  // namespace ray::transport
