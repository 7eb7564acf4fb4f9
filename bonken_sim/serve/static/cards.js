// What every view of the page shares: cards drawn as text, the API, errors, small helpers.
"use strict";

const SUITS = "CDHS";
const SUIT_SYMBOL = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const RANKS = "23456789TJQKA";
// A hand is shown by suit, alternating colours: spades, hearts, clubs, diamonds.
const SUIT_ORDER = { S: 0, H: 1, C: 2, D: 3 };

function cardRank(c) { return RANKS.indexOf(c[0]); }
function cardSuit(c) { return c[1]; }
function sortHand(cards) {
  return cards.slice().sort((a, b) =>
    SUIT_ORDER[cardSuit(a)] - SUIT_ORDER[cardSuit(b)] || cardRank(b) - cardRank(a));
}
function cardLabel(c) {
  if (c === "pass") return "pass";
  return (c[0] === "T" ? "10" : c[0]) + SUIT_SYMBOL[c[1]];
}
function isRed(c) { return c[1] === "H" || c[1] === "D"; }

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function cardSpan(c, extra) {
  return el("span", { class: "pip" + (c !== "pass" && isRed(c) ? " red" : "") + (extra ? " " + extra : ""),
    "data-card": c }, cardLabel(c));
}

const CONTRACT_LABEL = {
  bukken: "Bukken (no tricks)", hartenjagen: "Hartenjagen (no hearts)",
  herenboeren: "Herenboeren (no kings, jacks)", vrouwen: "Vrouwen (no queens)",
  hartenheer: "Hartenheer (not the K\u2665)", laatste_slag: "Laatste slag (not the last trick)",
  domino: "Domino", bierkaart: "Bierkaart (not the 7\u2666)",
};
function contractLabel(v) {
  if (!v) return "";
  if (v.startsWith("troeven_")) {
    const t = v.slice(8);
    return "Troeven " + (t === "NT" ? "no trump" : SUIT_SYMBOL[t]);
  }
  return CONTRACT_LABEL[v] || v;
}
function fmt(x, digits) {
  if (x === null || x === undefined) return "\u2013";
  const d = digits === undefined ? 1 : digits;
  return (x > 0 ? "+" : "") + Number(x).toFixed(d);
}

// Requests in flight mark the page busy (the browser tests wait on it).
let inFlight = 0;
function busy(delta) {
  inFlight += delta;
  document.body.toggleAttribute("data-busy", inFlight > 0 || window.animating === true);
}

async function api(method, path, body) {
  busy(1);
  try {
    const opts = { method, headers: {} };
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    const resp = await fetch(path, opts);
    const data = await resp.json().catch(() => ({ error: "the server's answer is not JSON" }));
    if (resp.status === 503 && data.kernels) {  // still compiling (kernels.js): then again
      await kernelsReady(data.kernels);
      return await api(method, path, body);
    }
    if (!resp.ok) throw new Error(data.error || ("HTTP " + resp.status));
    showError(null);
    return data;
  } catch (err) {
    showError(err.message);
    throw err;
  } finally {
    busy(-1);
  }
}

function showError(message) {
  const box = document.getElementById("error");
  box.hidden = !message;
  box.textContent = message || "";
}

function showView(name) {
  for (const sec of document.querySelectorAll(".view")) sec.hidden = sec.id !== "view-" + name;
  for (const tab of document.querySelectorAll(".tab")) {
    if (tab.dataset.view === name) tab.setAttribute("aria-current", "page");
    else tab.removeAttribute("aria-current");
  }
}

// Arrow keys move the focus along a row of buttons (the hand, the card picker).
function arrowKeys(container) {
  container.addEventListener("keydown", (ev) => {
    if (!["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"].includes(ev.key)) return;
    const items = [...container.querySelectorAll("button:not([disabled])")];
    const i = items.indexOf(document.activeElement);
    if (!items.length) return;
    let j = i;
    if (ev.key === "ArrowLeft" || ev.key === "ArrowUp") j = i <= 0 ? items.length - 1 : i - 1;
    else if (ev.key === "ArrowRight" || ev.key === "ArrowDown") j = i < 0 || i === items.length - 1 ? 0 : i + 1;
    else if (ev.key === "Home") j = 0;
    else j = items.length - 1;
    items[j].focus();
    ev.preventDefault();
  });
}
