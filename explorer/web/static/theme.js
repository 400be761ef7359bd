// Applies the saved theme before the page paints (a classic script in
// <head>, so there is no flash of the other theme). No saved choice: the
// system's prefers-color-scheme decides, through CSS alone.
(function () {
  try {
    var t = localStorage.getItem("ember-theme");
    if (t === "light" || t === "dark") document.documentElement.dataset.theme = t;
  } catch (e) { /* storage blocked: follow the system */ }
})();
