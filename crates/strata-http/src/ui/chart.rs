//! Live charts: request rate and latency percentiles over the last minutes. The page embeds
//! the current samples (so the first paint has data) and a small script redraws the inline
//! SVG from `/api/v1/charts` once a second.

use crate::charts::ChartSample;

/// Two charts (rate; p50/p95/p99 latency) with their script.
pub fn charts(samples: &[ChartSample]) -> String {
    let data = serde_json::to_string(samples).unwrap_or_else(|_| "[]".into());
    format!(
        "<div class=\"cards\">\
<div><div class=\"muted\">Requests per second (last 10 min)</div>\
<svg id=\"chart-rate\" width=\"600\" height=\"160\" role=\"img\" aria-label=\"request rate\"></svg></div>\
<div><div class=\"muted\">Latency ms: <span style=\"color:#2a9d8f\">p50</span> \
<span style=\"color:#e9c46a\">p95</span> <span style=\"color:#e76f51\">p99</span></div>\
<svg id=\"chart-latency\" width=\"600\" height=\"160\" role=\"img\" aria-label=\"request latency\"></svg></div>\
</div><script>window.strataSamples={data};{CHART_JS}</script>"
    )
}

const CHART_JS: &str = r#"
(function(){
var NS='http://www.w3.org/2000/svg';
function el(name,attrs,text){var e=document.createElementNS(NS,name);for(var k in attrs)e.setAttribute(k,attrs[k]);if(text!==undefined)e.textContent=text;return e;}
function draw(id,samples,series){
  var svg=document.getElementById(id);if(!svg)return;while(svg.firstChild)svg.removeChild(svg.firstChild);
  var W=600,H=160,L=48,B=18,max=0;
  samples.forEach(function(s){series.forEach(function(k){max=Math.max(max,s[k[0]])})});
  max=max>0?max*1.1:1;
  for(var i=0;i<=4;i++){var y=H-B-(H-B-6)*i/4;
    svg.appendChild(el('line',{x1:L,x2:W,y1:y,y2:y,stroke:'#e3e8ef'}));
    svg.appendChild(el('text',{x:L-4,y:y+4,'text-anchor':'end','font-size':10,fill:'#6b7785'},(max*i/4).toPrecision(3)));}
  svg.appendChild(el('text',{x:W-2,y:H-4,'text-anchor':'end','font-size':10,fill:'#6b7785'},'now'));
  if(samples.length<2){svg.appendChild(el('text',{x:W/2,y:H/2,'text-anchor':'middle',fill:'#6b7785'},'collecting samples…'));return;}
  var n=samples.length,step=(W-L)/Math.max(n-1,1);
  series.forEach(function(k){var pts=samples.map(function(s,i){return (L+i*step).toFixed(1)+','+(H-B-(H-B-6)*s[k[0]]/max).toFixed(1)}).join(' ');
    svg.appendChild(el('polyline',{points:pts,fill:'none',stroke:k[1],'stroke-width':1.5}));});
}
function render(samples){
  draw('chart-rate',samples,[['requests_per_sec','#1d3557']]);
  draw('chart-latency',samples,[['p50_ms','#2a9d8f'],['p95_ms','#e9c46a'],['p99_ms','#e76f51']]);
}
render(window.strataSamples||[]);
setInterval(function(){if(document.hidden)return;fetch('/api/v1/charts').then(function(r){return r.json()}).then(function(d){render(d.samples)}).catch(function(){});},1000);
})();
"#;
