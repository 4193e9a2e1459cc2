import { beforeEach, describe, expect, it } from "vitest";

import { CONFIG, localeModule, registerLocale } from "../../../../static/labs/charts/locale.js";

// What templatetags/plotly_words writes on a Marathi page (two of its words).
const MARATHI = JSON.stringify({
  name: "mr",
  dictionary: {
    "Download plot as a PNG": "आलेख PNG चित्र म्हणून डाउनलोड करा",
    "Reset axes": "अक्ष पूर्वीसारखे करा",
  },
});

function page(lang, json) {
  return {
    documentElement: { lang: lang },
    getElementById: (id) => (id === "plotly-locale" && json ? { textContent: json } : null),
  };
}

function plotly() {
  const registered = [];
  return { registered: registered, register: (m) => registered.push(m) };
}

describe("localeModule", () => {
  it("names the toolbar's words by the page's language", () => {
    const locale = localeModule(MARATHI, "mr");
    expect(locale.moduleType).toBe("locale");
    expect(locale.name).toBe("mr");
    expect(locale.dictionary["Download plot as a PNG"]).toMatch(/[\u0900-\u097f]/);
  });

  it("gives none on an English page, or with no words", () => {
    expect(localeModule(MARATHI, "en")).toBeNull();
    expect(localeModule(MARATHI, "en-gb")).toBeNull();
    expect(localeModule(null, "mr")).toBeNull();
  });
});

describe("registerLocale", () => {
  beforeEach(() => { delete CONFIG.locale; });

  it("registers the Marathi words once and draws every chart after with them", () => {
    const fake = plotly();
    registerLocale(fake, page("mr", MARATHI));
    registerLocale(fake, page("mr", MARATHI));
    expect(fake.registered.map((m) => m.name)).toEqual(["mr"]);
    expect(CONFIG.locale).toBe("mr");
  });

  it("leaves an English page's toolbar in plotly.js's English", () => {
    const fake = plotly();
    registerLocale(fake, page("en", null));
    expect(fake.registered).toEqual([]);
    expect(CONFIG.locale).toBeUndefined();
  });

  it("keeps only the buttons the site words in both languages: no Share chart", () => {
    expect(CONFIG.modeBarButtons.flat()).toEqual(["toImage", "zoom2d", "pan2d", "resetScale2d"]);
    expect(CONFIG.showSendToCloud).toBe(false);
  });
});
