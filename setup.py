"""The one build step pyproject.toml cannot declare: the wheel carries the protobuf package
`qipai.v1`, generated from protos/ at build time and never committed.

An editable install (`make`) skips it: there `make protos` generates gen/ and points the venv at it."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PROTOS = Path(__file__).resolve().parent / "protos"


class BuildPyWithProtos(build_py):
    """build_py, then grpc_tools.protoc writes `qipai/v1/*_pb2*.py` into the build directory."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        from grpc_tools import protoc  # a build requirement (pyproject.toml), not a runtime one

        out = Path(self.build_lib)
        sources = sorted(str(p.relative_to(PROTOS)) for p in (PROTOS / "qipai" / "v1").glob("*.proto"))
        if not sources:
            raise SystemExit(f"no .proto files under {PROTOS}: the source tree is incomplete")
        well_known = files("grpc_tools") / "_proto"  # google/protobuf/*.proto, as `python -m grpc_tools.protoc` adds
        args = ["protoc", f"-I{PROTOS}", f"-I{well_known}", f"--python_out={out}", f"--grpc_python_out={out}",
                *(str(PROTOS / s) for s in sources)]
        if protoc.main(args) != 0:
            raise SystemExit("grpc_tools.protoc failed on protos/ (its message is above)")
        for package in ("qipai", "qipai/v1"):
            (out / package / "__init__.py").touch()


setup(cmdclass={"build_py": BuildPyWithProtos})
