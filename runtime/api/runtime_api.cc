#include "runtime/api/runtime_api.h"

#include <cstring>

namespace ray::core {

namespace {
RuntimeBinding* Self(void* ctx) { return static_cast<RuntimeBinding*>(ctx); }

std::vector<ObjectId> Ids(const char* ids, size_t n) {
  std::vector<ObjectId> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    out.push_back(ObjectId::FromBinary(std::string_view(ids + i * ObjectId::kSize, ObjectId::kSize)));
  }
  return out;
}

// Runtime-owned memory behind a RayObject.
struct Holder {
  std::shared_ptr<const void> keep;
};

// What last_error() returns: the calling thread's last failure.
thread_local std::string last_error;
// What call_id() returns: the call the calling thread runs.
thread_local uint64_t current_call = 0;

RayObject ToRayObject(const Fetched& f) {
  RayObject o;
  o.data = f.data;
  o.size = f.size;
  o.kind = f.state == protocol::ObjectState::kError     ? RAY_OBJECT_ERROR
           : f.state == protocol::ObjectState::kMissing ? RAY_OBJECT_PENDING
                                                        : RAY_OBJECT_VALUE;
  o.handle = f.keep ? new Holder{f.keep} : nullptr;
  return o;
}
}  // namespace

RuntimeBinding::RuntimeBinding(CoreClient* client, std::string plugin_hash)
    : client_(client), plugin_hash_(std::move(plugin_hash)) {
  api_.abi_version = RAY_PLUGIN_ABI_VERSION;
  api_.ctx = this;
  api_.submit = &Submit;
  api_.put = &Put;
  api_.get = &Get;
  api_.release = &Release;
  api_.wait = &Wait;
  api_.call = &Call;
  api_.last_error = &LastError;
  api_.get_async = &GetAsync;
  api_.call_id = &CallId;
  api_.complete = &Complete;
  api_.ref_delta = [](void* ctx, const char* id, int32_t delta) {
    Self(ctx)->client_->RefDelta(ObjectId::FromBinary(std::string_view(id, ObjectId::kSize)), delta);
  };
  api_.put_parts = [](void* ctx, const RayArg* parts, size_t n, char* id_out) {
    auto* self = Self(ctx);
    std::vector<std::string_view> views;
    for (size_t i = 0; i < n; ++i) views.emplace_back(parts[i].data, parts[i].size);
    auto id = self->client_->Put(views);
    if (!id.ok()) return self->Fail(id.status());
    std::memcpy(id_out, id->data(), ObjectId::kSize);
    return 0;
  };
  api_.retain = [](void*, void* handle) -> void* {
    // An argument's handle is its Fetched::keep (see the worker).
    return new Holder{*static_cast<const std::shared_ptr<const void>*>(handle)};
  };
  api_.ref_escaped = [](void* ctx, const char* id) {
    Self(ctx)->client_->RefEscaped(ObjectId::FromBinary(std::string_view(id, ObjectId::kSize)));
  };
}

int RuntimeBinding::Fail(const Status& st) {
  last_error = st.message();
  return static_cast<int>(st.code());
}

int RuntimeBinding::Submit(void* ctx, const char* req, size_t len, char* ids_out, size_t ids_cap) {
  auto* self = Self(ctx);
  auto ids = self->client_->Submit(self->plugin_hash_, std::string_view(req, len));
  if (!ids.ok()) return self->Fail(ids.status());
  if (ids->size() * ObjectId::kSize > ids_cap) {
    return self->Fail(Status::InvalidArgument("id buffer too small"));
  }
  for (size_t i = 0; i < ids->size(); ++i) {
    std::memcpy(ids_out + i * ObjectId::kSize, (*ids)[i].data(), ObjectId::kSize);
  }
  return 0;
}

int RuntimeBinding::Put(void* ctx, const char* data, size_t len, char* id_out) {
  auto* self = Self(ctx);
  auto id = self->client_->Put({std::string_view(data, len)});
  if (!id.ok()) return self->Fail(id.status());
  std::memcpy(id_out, id->data(), ObjectId::kSize);
  return 0;
}

int RuntimeBinding::Get(void* ctx, const char* ids, size_t n, int64_t timeout_ms, RayObject* out) {
  auto* self = Self(ctx);
  auto fetched = self->client_->Get(Ids(ids, n), timeout_ms);
  if (!fetched.ok()) return self->Fail(fetched.status());
  for (size_t i = 0; i < n; ++i) out[i] = ToRayObject((*fetched)[i]);
  return 0;
}

void RuntimeBinding::Release(void*, RayObject* objects, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    delete static_cast<Holder*>(objects[i].handle);
    objects[i].handle = nullptr;
  }
}

int RuntimeBinding::Wait(void* ctx, const char* ids, size_t n, size_t num, int64_t timeout_ms,
                         uint8_t* ready_out) {
  auto* self = Self(ctx);
  auto ready = self->client_->Wait(Ids(ids, n), num, timeout_ms);
  if (!ready.ok()) return self->Fail(ready.status());
  for (size_t i = 0; i < n; ++i) ready_out[i] = (*ready)[i] ? 1 : 0;
  return 0;
}

int RuntimeBinding::Call(void* ctx, const char* op, const char* req, size_t len,
                         RayObject* reply) {
  auto* self = Self(ctx);
  auto body = self->client_->Call(op, std::string(req, len));
  if (!body.ok()) return self->Fail(body.status());
  auto owned = std::make_shared<std::string>(std::move(body).value());
  reply->data = owned->data();
  reply->size = owned->size();
  reply->kind = RAY_OBJECT_VALUE;
  reply->handle = new Holder{owned};
  return 0;
}

const char* RuntimeBinding::LastError(void*) { return last_error.c_str(); }

int RuntimeBinding::GetAsync(void* ctx, const char* id,
                             void (*done)(void* user, RayObject* object), void* user) {
  auto* self = Self(ctx);
  if (!done) return self->Fail(Status::InvalidArgument("get_async: no callback"));
  self->async_gets_.Add(ObjectId::FromBinary(std::string_view(id, ObjectId::kSize)),
                        [done, user](const Fetched& f) {
                          RayObject o = ToRayObject(f);
                          done(user, &o);  // the plugin releases it
                        });
  return 0;
}

void RuntimeBinding::SetCurrentCall(uint64_t call) { current_call = call; }

uint64_t RuntimeBinding::CallId(void*) { return current_call; }

int RuntimeBinding::Complete(void* ctx, uint64_t call, RayResult result) {
  auto* self = Self(ctx);
  if (!self->completer_ || call == 0) {
    if (result.free_fn) result.free_fn(result.data);
    return self->Fail(Status::FailedPrecondition("complete: no call of an async method waits"));
  }
  self->completer_(call, result);
  return 0;
}

}  // namespace ray::core
