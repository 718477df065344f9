#include "lidartwin/viewer/viewer_server.h"

#include <fmt/core.h>
#include <httplib.h>

#include <sys/socket.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

#include "lidartwin/viewer/viewer_page.h"

namespace lt::viewer {

struct ViewerServer::Impl {
  std::string title;
  Builder build;
  Stale stale;
  httplib::Server server;
  std::mutex mutex;  // one build at a time; requests come from httplib's thread pool
  // The last document built, shared with the responses still sending it (no copy per
  // request). An error is not kept: the next request tries again, so a file made readable
  // (chmod, a new simulation) shows without a restart.
  std::shared_ptr<const std::string> document;

  Expected<std::shared_ptr<const std::string>> Document() {
    std::lock_guard<std::mutex> lock(mutex);
    if (!document || stale()) {
      document.reset();
      auto built = build();
      if (!built.ok()) return built.error();
      document = std::make_shared<const std::string>(std::move(*built));
    }
    return document;
  }
};

ViewerServer::ViewerServer(std::string title, Builder build, Stale stale)
    : impl_(std::make_unique<Impl>()) {
  impl_->title = std::move(title);
  impl_->build = std::move(build);
  impl_->stale = std::move(stale);
  Impl* impl = impl_.get();
  // httplib's default sets SO_REUSEPORT, which lets a second view bind the same port and
  // answer half the requests with its own document. SO_REUSEADDR only: a port in use is an
  // error, a port in TIME_WAIT after a restart is not.
  impl->server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  impl->server.Get("/", [impl](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-store");
    res.set_content(ServedPage(impl->title, "document.bin"), "text/html; charset=utf-8");
  });
  impl->server.Get("/document.bin", [impl](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-store");
    auto document = impl->Document();
    if (!document.ok()) {
      res.status = 500;
      res.set_content(nlohmann::json{{"error", document.message()}}.dump(), "application/json");
      return;
    }
    std::shared_ptr<const std::string> bytes = *document;
    res.set_content_provider(bytes->size(), "application/octet-stream",
                             [bytes](size_t offset, size_t length, httplib::DataSink& sink) {
                               return sink.write(bytes->data() + offset,
                                                 std::min(length, bytes->size() - offset));
                             });
  });
}

ViewerServer::~ViewerServer() {
  Stop();
}

Expected<int> ViewerServer::Bind(const std::string& host, int port) {
  const int bound = port == 0 ? impl_->server.bind_to_any_port(host)
                              : (impl_->server.bind_to_port(host, port) ? port : -1);
  if (bound < 0)
    return Error{
        fmt::format("cannot listen on {}:{} (in use? choose another with --port, or "
                    "--port 0 for any free one)",
                    host, port)};
  return bound;
}

void ViewerServer::Prepare() {
  (void)impl_->Document();
}

Status ViewerServer::Run() {
  if (!impl_->server.listen_after_bind()) return Error{"the viewer server stopped listening"};
  return {};
}

void ViewerServer::Stop() {
  if (impl_->server.is_running()) impl_->server.stop();
}

}  // namespace lt::viewer
