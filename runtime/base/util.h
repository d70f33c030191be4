#pragma once
// The small helpers every module uses, in one include: time, bytes as text, files,
// addresses, processes, strings. New code includes the one it needs.

#include "runtime/base/clock.h"
#include "runtime/base/fs.h"
#include "runtime/base/hex.h"
#include "runtime/base/net.h"
#include "runtime/base/process.h"
#include "runtime/base/strings.h"
