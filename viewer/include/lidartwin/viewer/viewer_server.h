// lidartwin view's local server (cpp-httplib): the page at /, its document at /document.bin.
// The document is built when first asked for and again whenever its inputs changed on disk,
// so reloading the page after a new simulation shows the new one; a document that cannot be
// built is answered with its error, which the page shows.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "lidartwin/base/status.h"

namespace lt::viewer {

class ViewerServer {
 public:
  // The encoded document (EncodeViewerDocument) or why there is none.
  using Builder = std::function<Expected<std::string>()>;
  // True when the inputs changed since the last build.
  using Stale = std::function<bool()>;

  ViewerServer(std::string title, Builder build, Stale stale);
  ~ViewerServer();
  ViewerServer(const ViewerServer&) = delete;
  ViewerServer& operator=(const ViewerServer&) = delete;

  // Binds host:port (port 0: any free port) and returns the port; an error names the address.
  Expected<int> Bind(const std::string& host, int port);
  // Builds the document now, before the first request, so a problem shows at once.
  void Prepare();
  // Answers requests until Stop() (or the process's end); an error if it could not listen.
  Status Run();
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lt::viewer
