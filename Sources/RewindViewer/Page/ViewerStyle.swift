/// The page's CSS: light and dark schemes (the system's, or the page's toggle), a three-column
/// layout at desktop widths and one column on a phone. The statechart follows the toggle too: the
/// diagram's light and dark rules again under `data-theme`.
enum ViewerStyle {
    static let css =
        page + "\n" + DiagramStyle.scoped(DiagramStyle.light, under: ":root[data-theme=light]")
        + "\n" + DiagramStyle.scoped(DiagramStyle.dark, under: ":root[data-theme=dark]")

    private static let page = ##"""
        :root{--bg:#f7f7f5;--fg:#1d1f21;--muted:#6a6f75;--panel:#fff;--line:#dcdcd6;--accent:#d9822b;--accent-bg:#fbe7cf;--add:#1f7a3a;--del:#b3261e;--chg:#8a5a00;--bar:#7c8a99;--match:#2f6fdf;--bad:#c62828;font-family:\##(FontStack.sans);font-size:14px;color-scheme:light}
        :root[data-theme=dark]{--bg:#15171a;--fg:#e6e6e3;--muted:#9aa1a8;--panel:#1e2125;--line:#33383e;--accent:#f2a93b;--accent-bg:#4a3415;--add:#6fcf8a;--del:#ff8a80;--chg:#f2c46b;--bar:#7d8996;--match:#7fa8ff;--bad:#ff6b6b;color-scheme:dark}
        @media (prefers-color-scheme:dark){:root:not([data-theme=light]){--bg:#15171a;--fg:#e6e6e3;--muted:#9aa1a8;--panel:#1e2125;--line:#33383e;--accent:#f2a93b;--accent-bg:#4a3415;--add:#6fcf8a;--del:#ff8a80;--chg:#f2c46b;--bar:#7d8996;--match:#7fa8ff;--bad:#ff6b6b;color-scheme:dark}}
        *{box-sizing:border-box}
        body{margin:0;background:var(--bg);color:var(--fg)}
        button,select,input{font:inherit;color:inherit;background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:4px 8px}
        button{cursor:pointer;white-space:nowrap}button:hover{border-color:var(--accent)}button[aria-pressed=true]{background:var(--accent-bg);border-color:var(--accent)}
        h1{font-size:16px;margin:0;min-width:0;font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
        h2{font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:0 0 6px}
        .rw-top{display:flex;gap:8px;align-items:center;justify-content:space-between;padding:8px 12px;border-bottom:1px solid var(--line);background:var(--panel);position:sticky;top:0;z-index:2}
        .rw-actions{display:flex;gap:6px;flex-wrap:wrap}
        main{padding:8px 12px}
        .rw-banner{margin:0 0 8px;padding:6px 10px;border-radius:6px;border:1px solid var(--line);background:var(--panel)}
        .rw-banner.rw-bad{border-color:var(--bad)}.rw-banner.rw-bad strong{color:var(--bad)}
        .rw-timeline{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:8px;margin-bottom:8px}
        .rw-controls{display:flex;gap:6px;align-items:center;flex-wrap:wrap}
        .rw-controls .rw-pos{font-variant-numeric:tabular-nums;min-width:9ch}
        .rw-search{flex:1;min-width:140px}
        #rw-canvas{display:block;width:100%;height:72px;margin-top:6px;cursor:pointer;touch-action:none}
        #rw-scrubber{width:100%;margin:4px 0 0;padding:0;border:0;background:none;accent-color:var(--accent)}
        .rw-grid>*{min-width:0}
        .rw-grid{display:grid;grid-template-columns:minmax(280px,1.15fr) minmax(240px,1fr) minmax(280px,1.2fr);gap:8px;align-items:start}
        @media (max-width:900px){.rw-grid{grid-template-columns:1fr}main{padding:6px}}
        .rw-panel{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:8px;min-width:0;overflow:auto}
        .rw-chart{max-height:calc(100vh - 210px)}
        @media (max-width:900px){.rw-chart{max-height:none}}
        #rw-diagram svg{max-width:100%;height:auto;color:var(--fg)}
        .rw-event-name{font-weight:600;font-size:15px;word-break:break-all}.rw-meta{color:var(--muted);font-size:12px}
        .rw-log{list-style:none;margin:6px 0 0;padding:0;font-size:12px;font-variant-numeric:tabular-nums}
        .rw-log li{display:flex;gap:8px;padding:2px 4px;border-radius:4px;cursor:pointer;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
        .rw-log li:hover{background:var(--bg)}.rw-log li.rw-here{background:var(--accent-bg)}
        .rw-log .rw-v{color:var(--muted);min-width:6ch;text-align:right}
        .rw-log .rw-target{color:var(--match)}.rw-log .rw-pl{color:var(--muted);min-width:0;overflow:hidden;text-overflow:ellipsis}
        .rw-log li.rw-pinned{box-shadow:inset 3px 0 0 var(--match)}.rw-log li.rw-pinned .rw-v::before{content:"◆";color:var(--match);margin-right:3px}
        .rw-log li.rw-diverged .rw-v{color:var(--bad);font-weight:700}
        .rw-stack{display:flex;flex-direction:column;gap:4px}
        .rw-card{border:1px solid var(--line);border-radius:8px;padding:6px 8px;background:var(--bg)}
        .rw-card.rw-top-card{border-color:var(--accent);box-shadow:0 2px 0 var(--accent-bg)}
        .rw-card .rw-screen{font-weight:600}
        .rw-op{display:inline-block;font-size:11px;padding:1px 6px;border-radius:10px;background:var(--accent-bg);color:var(--fg);margin-left:6px}
        .rw-empty{color:var(--muted);font-style:italic}
        details.rw-section{margin-bottom:6px}details.rw-section>summary{cursor:pointer;font-weight:600}
        .rw-tree{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;line-height:1.5;word-break:break-word}
        .rw-tree details{margin-left:12px}.rw-tree summary{cursor:pointer;color:var(--muted)}
        .rw-tree .rw-kv{margin-left:12px}.rw-tree .rw-k{color:var(--match)}
        .rw-tree .rw-s{color:var(--add)}.rw-tree .rw-n{color:var(--chg)}.rw-tree .rw-b,.rw-tree .rw-z{color:var(--del)}
        .rw-redacted{background:var(--accent-bg);border-radius:3px;padding:0 3px;font-style:italic}
        .rw-diff{list-style:none;margin:0;padding:0;font:12px ui-monospace,Menlo,Consolas,monospace}
        .rw-diff li{padding:1px 0;word-break:break-word}.rw-add{color:var(--add)}.rw-del{color:var(--del)}.rw-chg{color:var(--chg)}
        .rw-funnel{display:flex;flex-direction:column;gap:4px;max-width:900px}
        .rw-bar{display:grid;grid-template-columns:minmax(90px,180px) 1fr auto;gap:8px;align-items:center;background:none;border:1px solid transparent;text-align:left;padding:2px 4px}
        .rw-bar .rw-track{display:block;background:var(--bg);border-radius:4px}
        .rw-bar .rw-fill{display:block;height:18px;border-radius:4px;background:var(--bar);position:relative;min-width:2px}
        #rw-stopped h2,#rw-all h2{margin-top:14px}
        .rw-bar .rw-stop{display:block;position:absolute;right:0;top:0;bottom:0;background:var(--accent);border-radius:0 4px 4px 0}
        .rw-bar[aria-pressed=true]{border-color:var(--accent)}
        .rw-sessions{margin-top:12px;border-collapse:collapse;font-size:13px}
        .rw-upgrade{margin-bottom:8px}.rw-upgrade h3{margin:12px 0 0;font-size:14px}
        .rw-sessions td,.rw-sessions th{padding:3px 10px 3px 0;text-align:left;border-bottom:1px solid var(--line)}
        .rw-sessions a{color:var(--match);cursor:pointer}
        @media (max-width:600px){
        .rw-top{flex-wrap:wrap}.rw-top h1{flex:1 1 100%;white-space:normal;overflow-wrap:anywhere}
        .rw-bar{grid-template-columns:minmax(0,1fr) auto;row-gap:2px}.rw-bar .rw-track{grid-column:1/-1;grid-row:2}
        }
        [hidden]{display:none!important}
        """##
}
