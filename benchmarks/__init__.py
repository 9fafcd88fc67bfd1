"""`make bench`: our server side by side with a bare Starlette + uvicorn reference app.

Every figure is measured on both, one server at a time, on loopback, with wrk as the load
generator, and reported as ours / reference / ratio with its target and a verdict. The
package is a tool, not part of the mock: it talks to servers only over HTTP and starts and stops
only the processes it spawned.

    __main__.py       command line (`python -m benchmarks`)
    run.py            the order of a run: our server, then the reference, one figure at a time
    figures.py        how each figure is measured against a running server
    load.py           wrk runs and their results (Lua scripts in lua/)
    servers.py        spawning a server, timing its first 200, RSS, stopping it by PID
    seed.py           the generated 100k-document seed, cached in a temp folder
    report.py         rows, targets, verdicts; the text table, the JSON file, the README table
    reference_app.py  the bare reference app
"""
