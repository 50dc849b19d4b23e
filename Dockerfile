# pecheck in a Debian 12 image: the CLI and the Python package, for CI jobs that run
# `pecheck run --config pecheck.toml` (or pytest with the pecheck plugin) with no compiler on the runner.
#
#   docker build -t pecheck .                                  # NumPy subjects
#   docker build --build-arg WITH_TORCH=1 -t pecheck:torch .   # PyTorch subjects too
#   docker run --rm -v "$PWD:/work" -w /work pecheck pecheck run --config pecheck.toml
#
# Build stage: the compiler and the -dev packages make the Debian package (scripts/package.sh; the same
# cpack step tests/package/check_deb.py checks). Runtime stage: that package and what it needs to run.

FROM debian:bookworm AS build
WORKDIR /src
COPY . .
RUN bash scripts/install-deps.sh package \
 && bash scripts/package.sh /build

FROM debian:bookworm
ARG WITH_TORCH=0
COPY --from=build /build/pecheck_*.deb /tmp/
RUN apt-get update \
 && if [ "$WITH_TORCH" = 1 ]; then torch=python3-torch; else torch=; fi \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      /tmp/pecheck_*.deb python3-numpy python3-pytest $torch \
 && rm -rf /var/lib/apt/lists/* /tmp/pecheck_*.deb \
 && pecheck list >/dev/null
ENV PECHECK_NO_REGRESSIONS=1
WORKDIR /work
CMD ["pecheck", "--help"]
