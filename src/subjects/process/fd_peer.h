#pragma once
// A subject on descriptors inherited from the process that started pecheck
// (`fd:READ,WRITE`): pecheck writes requests to WRITE and reads answers from
// READ, with the same bounded waits as for a child (a Channel), but starts
// nothing, kills nothing and sees no stderr. The Python package uses it to
// check functions living in the very process that runs pecheck.
#include <string>

#include "subjects/process/channel.h"
#include "subjects/process/peer.h"

namespace pecheck::process {

class FdPeer final : public Peer {
 public:
  // Takes ownership of both descriptors (closing them ends the conversation:
  // the other side reads end of input). READ and WRITE may be one socket.
  FdPeer(int read_fd, int write_fd);

  Exchange exchange(std::string_view request, Clock::time_point deadline, std::size_t max_line,
                    std::string& received) override;
  void post(std::string_view request) override;
  std::string stderr_tail() const override { return {}; }
  // Closes both descriptors; returns kNotAChild.
  std::string stop(std::chrono::milliseconds grace) override;

 private:
  Channel channel_;
};

}  // namespace pecheck::process
