"""An assignment's class results: each hand-in's figures kept on save (`digest`), the page's
figures and outlier rule (`figures`), its charts (`charts`), the predictions panel
(`predictions`), its exports (`export`) and the views (`views`)."""
