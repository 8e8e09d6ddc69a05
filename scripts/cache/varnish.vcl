# Varnish 7.1 in front of the events service (docs/caching.md "Running Varnish in front").
#
# Nothing here names a path of the service: its Cache-Control and Vary headers decide what is stored
# and for how long, and Varnish's builtin VCL (which runs after each subroutine below unless it
# returns) keeps its usual safety rules: requests with Authorization or Cookie are passed, answers
# marked private, no-store or no-cache, with Set-Cookie or with `Vary: *` are not stored. What this
# file adds: PURGE and BAN for the purger (PURGE_URL), bans that the ban lurker can run, serving a
# stale copy while the service fails (stale-if-error), and an optional X-Cache header.
vcl 4.1;

import std;

# scripts/cache/varnish.ts writes a copy with the service's port; edit both lines for your setup.
backend default {
    .host = "127.0.0.1";
    .port = "8080";
}

# Who may send PURGE and BAN: the hosts running the service (extend for your setup).
acl purgers {
    "127.0.0.1";
    "::1";
}

sub vcl_recv {
    # PURGE <path>: removes that URL's object on this Host, every variant.
    if (req.method == "PURGE") {
        if (client.ip !~ purgers) {
            return (synth(405, "Method Not Allowed"));
        }
        return (purge);
    }
    # BAN / with X-Ban-Url: <regex>: bans every object whose path+query matches, on every host. The
    # condition reads only obj.* (the URL is kept as x-url in the object), so the ban lurker can test
    # stored objects in the background instead of each one waiting for its next request. Varnish
    # splits a ban at spaces, so the regex has none (URLs have none; write \x20 to match one).
    if (req.method == "BAN") {
        if (client.ip !~ purgers) {
            return (synth(405, "Method Not Allowed"));
        }
        if (!req.http.X-Ban-Url) {
            return (synth(400, "X-Ban-Url missing"));
        }
        if (std.ban("obj.http.x-url ~ " + req.http.X-Ban-Url)) {
            return (synth(200, "Banned"));
        }
        return (synth(400, std.ban_error()));
    }
    # Everything else: Varnish's builtin vcl_recv.
}

sub vcl_backend_response {
    # For lurker-friendly bans (above); removed in vcl_deliver.
    set beresp.http.x-url = bereq.url;

    # Grace (serving a stale copy at once while a background fetch refreshes it) is what the answer
    # allows. Varnish 7.1 sets beresp.grace from stale-while-revalidate itself, but falls back to its
    # default_grace parameter (10 s) when there is none: that fallback is dropped, since an answer
    # without stale directives (a 404, say) asks for none.
    if (beresp.http.Cache-Control !~ "(?i)(^|[ ,])stale-while-revalidate=") {
        set beresp.grace = 0s;
    }
    # stale-if-error: Varnish does not read it, so grace is extended to its window, and a background
    # fetch that fails (a 5xx here, no answer at all in vcl_backend_error) is abandoned, which keeps
    # the stale copy in use. (Without health probes this is the way to tell a failing service.)
    if (std.duration(regsub(beresp.http.Cache-Control, "(?i)^(.*[ ,])?stale-if-error=([0-9]+).*$", "\2s"), 0s)
        > beresp.grace) {
        set beresp.grace = std.duration(
            regsub(beresp.http.Cache-Control, "(?i)^(.*[ ,])?stale-if-error=([0-9]+).*$", "\2s"), 0s);
    }
    if (bereq.is_bgfetch && beresp.status >= 500) {
        return (abandon);
    }
    # Past grace an object is kept for a conditional fetch (If-None-Match / If-Modified-Since): an
    # unchanged answer then costs the service a 304 instead of a body.
    if (beresp.http.ETag || beresp.http.Last-Modified) {
        set beresp.keep = 1h;
    }
    # Everything else: Varnish's builtin vcl_backend_response (hit-for-miss for private answers...).
}

sub vcl_backend_error {
    if (bereq.is_bgfetch) {
        return (abandon);
    }
}

sub vcl_deliver {
    unset resp.http.x-url;
    # For diagnosis only; nothing depends on it.
    if (obj.hits > 0) {
        set resp.http.X-Cache = "HIT";
    } else {
        set resp.http.X-Cache = "MISS";
    }
}
